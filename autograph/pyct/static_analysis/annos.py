"""Annotation keys used by the static analyses (aliases of the anno.Static keys)."""

from autograph.pyct import anno


class NodeAnno(object):
    """Annotation keys of the static analyses, as TensorFlow's `annos.NodeAnno` names them.

    The members are the same objects as the `anno.Static` keys, so
    `anno.getanno(n, NodeAnno.BODY_SCOPE)` and `anno.getanno(n, anno.Static.BODY_SCOPE)`
    read the same annotation. Each key's `.value` documents it.
    """

    IS_PARAM = anno.Static.IS_PARAM

    # Scopes are activity.Scope objects.
    ARGS_SCOPE = anno.Static.ARGS_SCOPE
    COND_SCOPE = anno.Static.COND_SCOPE
    ITERATE_SCOPE = anno.Static.ITERATE_SCOPE
    ARGS_AND_BODY_SCOPE = anno.Static.ARGS_AND_BODY_SCOPE
    BODY_SCOPE = anno.Static.BODY_SCOPE
    ORELSE_SCOPE = anno.Static.ORELSE_SCOPE

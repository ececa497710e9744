"""Arrays a loop reads element by element: the code generator's half that reads them from a
memoryview made before the loop, as Python scalars (`x_view[i]`, or `x_view[row + j]` over an
N-d array of static shape), and holds float32 elements as Python floats where that computes
the same (runtime.executor.loop_reads picks them).
"""
from runtime.executor import emitters
from runtime.executor import scalars


class ElementCode:
    """Mixin of the code generator (`codegen._Generator`) owning the element-read state."""

    def init_element_state(self):
        """Sets up the state this half owns (called by the generator's __init__)."""
        # Arrays a loop reads element by element -> a memoryview of them made before the loop:
        # indexing it gives the Python int or bool the code holds (emitters.element_read).
        self.views = {}
        self.flat_shapes = {}  # name of a one-dimensional view of an N-d array -> its shape
        # Getitem nodes read from a flat view -> the name of the index's loop-invariant part
        # (all but the last index), computed before the loop (`row_offsets`).
        self.offsets = {}
        # Getitem nodes whose float32 element a loop may read as a Python float (every read
        # of it computes the same on one: scalars.python_float_reader), and the float32
        # tensors the code holds as Python floats (those elements, the branch inputs bound
        # to them).
        self.float_reads = set()
        self.python_floats = set()
        # Loop-invariant float32 scalars compared with those -> a Python float copy of them
        # made before the loop.
        self.float_copies = {}

    def element_read(self, node):
        """`scalars.element_read`, for the emitters: `node` reads one element as a Python
        scalar."""
        return scalars.element_read(node)

    def element_view(self, node):
        """The memoryview to read getitem `node`'s element from, as a Python scalar, or None."""
        view = self.views.get(node.inputs[0])
        if view is None:
            return None
        if scalars.element_read(node):
            self.python_ready.add(node.outputs[0])
        elif node in self.float_reads:
            self.python_floats.add(node.outputs[0])
        else:
            return None
        return view

    def float_copy(self, tensor, depth, node):
        """Makes a Python float copy of float32 scalar `tensor` (compared with Python floats
        in `node`'s loop): exact, a float32 converts to a double exactly."""
        if tensor not in self.float_copies:
            name = self.namer.new(self.env[tensor].lstrip("_") + "_float")
            self.line(depth, f"{name} = float({self.env[tensor]})", node)
            self.float_copies[tensor] = name

    def read_as_python_floats(self, nodes):
        """Lets the getitem `nodes` read their float32 element as a Python float (from a
        memoryview, where one is made): every read of it computes the same on one."""
        self.float_reads.update(nodes)

    def view(self, tensor, depth, node):
        """Makes a memoryview of array `tensor` (read element by element in `node`'s loop).

        An array of two or more dimensions, all static, gets a one-dimensional view of its
        elements in C order (`ravel()`: the array itself when C-contiguous, else a copy),
        read at one linear index: `v[i * 10 + j]` builds no index tuple and walks no
        dimensions, as the N-d view's `v[i, j]` does.
        """
        if tensor not in self.views:
            name = self.namer.new(self.env[tensor].lstrip("_") + "_view")
            shape = tensor.shape
            if shape is not None and len(shape) >= 2 and None not in shape:
                self.flat_shapes[name] = shape
                self.line(depth, f"{name} = memoryview({self.env[tensor]}.ravel())", node)
            else:
                self.line(depth, f"{name} = memoryview({self.env[tensor]})", node)
            self.views[tensor] = name

    def row_offsets(self, body, invariant, depth, node):
        """Computes before a loop the part of each flat read's index that does not change in
        it: `row = i * 10` before `for j ...: v[row + j]` (a multiply less per read).

        Args:
            body: The loop's body graph; its own getitem nodes are considered.
            invariant: The body's inputs that hold the same value at every step (captures).
            depth: The depth of the loop's header.
            node: The loop's node (for the line's label).
        """
        invariant = set(invariant)
        for m in body.nodes:
            view = self.views.get(m.inputs[0]) if m.inputs else None
            shape = self.flat_shape(view)
            if shape is None or not (
                    scalars.element_read(m) or m in self.float_reads):
                continue
            spec = m.attrs["spec"][:-1]
            if any(type(item) is not int and not (
                    m.inputs[item.position] in invariant
                    and self.env.get(m.inputs[item.position], "").isidentifier())
                   for item in spec):
                continue
            keys = [None if type(item) is int else self.env[m.inputs[item.position]]
                    for item in spec]
            terms = emitters.flat_terms(shape, spec, keys)
            if None not in terms and any(type(t) is str for t in terms):
                name = self.namer.new(view + "_row")
                self.line(depth, f"{name} = {emitters.sum_text(terms)}", node)
                self.offsets[m] = name

    def flat_shape(self, view):
        """The array's shape when memoryview `view` is flat (see `view`), else None."""
        return self.flat_shapes.get(view)

#!/usr/bin/env bash
# Import-and-core smoke run on pyenv's Python 3.10, 3.12 and 3.13: a venv per version, the
# project installed, then tests/autograph, tests/corpus and the version-gated syntax test
# (pytest's own -q from pyproject, so the last log line is the pass/fail count). One summary
# line per version; exits non-zero if any version fails.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
status=0
summary=()
for minor in 3.10 3.12 3.13; do
  py=$(ls -d "$HOME"/.pyenv/versions/"$minor".*/bin/python"$minor" 2>/dev/null | sort -V | tail -1)
  if [ -z "$py" ]; then
    summary+=("python$minor: MISSING (no ~/.pyenv/versions/$minor.*)")
    status=1
    continue
  fi
  venv="$root/.venv-smoke-$minor"
  log="$venv.log"
  if "$py" -m venv "$venv" >"$log" 2>&1 \
      && "$venv/bin/python" -m pip install -q -e ".[test]" >>"$log" 2>&1 \
      && "$venv/bin/python" -c "import autograph, runtime" >>"$log" 2>&1 \
      && "$venv/bin/python" -m pytest -p no:cacheprovider tests/autograph tests/corpus \
          tests/reliability/test_syntax_versions.py \
          >>"$log" 2>&1; then
    summary+=("python$minor ($("$py" -V 2>&1)): PASS  $(tail -1 "$log")")
  else
    summary+=("python$minor ($("$py" -V 2>&1)): FAIL  $(tail -1 "$log")  (log: $log)")
    status=1
  fi
done
printf '%s\n' "${summary[@]}"
exit $status

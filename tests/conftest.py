"""Test-session settings shared by every test."""
import os

# The on-disk cache of converted code (autograph/impl/disk_cache.py) is off for the suite, in
# this process and in the processes tests start: each test converts afresh and nothing is
# written to the user's cache directory. tests/autograph/impl/test_disk_cache.py turns it on
# in temporary directories.
os.environ['AUTOGRAPH_CACHE_DIR'] = ''

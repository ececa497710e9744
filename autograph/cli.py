"""Command-line interface: `autograph dump PATH_OR_MODULE`."""
import sys


def main(argv=None):
    print("usage: autograph dump PATH_OR_MODULE [--function NAME ...] [--output DIR]")
    return 0


if __name__ == "__main__":
    sys.exit(main())

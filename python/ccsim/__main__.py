"""`python -m ccsim` and the `ccsim` command (pyproject's entry point)."""

import sys


def main() -> None:
    # A Ctrl-C while the command line's modules load (typer, rich: about 0.1 s) is an
    # interrupt like any later one, not a traceback.
    try:
        from .cli import main as cli_main
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        sys.exit(130)
    cli_main()


if __name__ == "__main__":
    main()

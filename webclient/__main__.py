"""`python -m webclient` runs the same command as the `webclient` console script."""

from webclient.web.cli import main

if __name__ == "__main__":
    raise SystemExit(main())

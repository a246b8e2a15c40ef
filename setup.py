"""The package list, found rather than written by hand; every other setting is in pyproject.toml.

pyproject.toml can either list packages or find them, not both: the packages under webclient/ are found
here, and the two folders that pyproject.toml's package-dir maps into the package are added to them, with
the templates' own folders (the check report's, the playground's, ...).
"""

from pathlib import Path

from setuptools import find_packages, setup

FOLDERS = sorted(p.name for p in Path(__file__).parent.joinpath("templates").iterdir() if p.is_dir())
MAPPED = ["webclient.templates", *(f"webclient.templates.{name}" for name in FOLDERS), "webclient.static"]

setup(packages=[*find_packages(include=["webclient", "webclient.*"]), *MAPPED])

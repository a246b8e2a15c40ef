"""The package list, found rather than written by hand; every other setting is in pyproject.toml.

pyproject.toml can either list packages or find them, not both: the packages under webclient/ are found
here, and the two folders that pyproject.toml's package-dir maps into the package are added to them.
"""

from setuptools import find_packages, setup

MAPPED = ["webclient.templates", "webclient.static"]

setup(packages=[*find_packages(include=["webclient", "webclient.*"]), *MAPPED])

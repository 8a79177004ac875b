"""Packaging: octui's packages are installed under one top-level name, ``octui``.

The repository keeps ``tui/``, ``widgets/`` and ``styles/`` at its top; installed, they become
``octui.tui``, ``octui.widgets`` and ``octui.styles`` (``tui/_octui/__init__.py`` is ``octui``
itself and keeps the code's ``tui.…`` imports working). Everything else is in pyproject.toml.
"""

from setuptools import find_packages, setup

OWN = ("tui", "widgets", "styles")
found = find_packages(include=[*OWN, *(f"{name}.*" for name in OWN)], exclude=["tui._octui"])

setup(
    packages=["octui", *(f"octui.{package}" for package in found)],
    package_dir={"octui": "tui/_octui", **{f"octui.{name}": name for name in OWN}},
    package_data={"octui.styles": ["*.tcss"]},
)

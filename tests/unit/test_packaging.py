"""An installed octui claims one top-level name, ``octui``, and still runs (issue #18).

The wheel is built for real (``pip wheel``, as ``pipx``/``uv tool`` would) and unpacked into a
bare directory; a Python started in isolated mode (no current directory, no checkout on its path)
then imports octui from there only.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
OWN = ("tui", "widgets", "styles")
pytestmark = pytest.mark.xdist_group("packaging")  # one wheel build per run, not one per worker


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # Built from a copy: a build writes build/ and *.egg-info beside the sources, and two test
    # processes building in the checkout at once trip over each other's.
    source = tmp_path_factory.mktemp("source")
    for name in ("pyproject.toml", "setup.py", "README.md"):
        shutil.copy2(REPO / name, source / name)
    for top in OWN:
        shutil.copytree(REPO / top, source / top, ignore=shutil.ignore_patterns("__pycache__"))
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(out), str(source)],
                   capture_output=True, text=True, timeout=300, check=True)
    wheel = next(out.glob("octui-*.whl"))
    site = tmp_path_factory.mktemp("site")
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(site)
    return site


def test_the_wheel_has_one_top_level_package(installed: Path) -> None:
    tops = {p.name for p in installed.iterdir() if not p.name.endswith(".dist-info")}
    assert tops == {"octui"}


def test_every_module_and_style_of_the_checkout_is_installed(installed: Path) -> None:
    wanted = {p.relative_to(REPO).as_posix() for top in OWN for p in (REPO / top).rglob("*")
              if p.suffix in (".py", ".tcss") and "__pycache__" not in p.parts
              and not p.relative_to(REPO).as_posix().startswith("tui/_octui/")}
    got = {p.relative_to(installed / "octui").as_posix() for p in (installed / "octui").rglob("*")
           if p.suffix in (".py", ".tcss")}
    assert wanted - got == set()
    assert (installed / "octui" / "__init__.py").read_text() == (REPO / "tui/_octui/__init__.py").read_text()


def test_installed_code_imports_by_its_own_names(installed: Path) -> None:
    code = ("import sys\n"
            "import octui\n"
            "import tui.state.store, octui.tui.state.store\n"
            "assert tui.state.store is octui.tui.state.store\n"
            "import widgets.plain, styles\n"
            "assert widgets.plain is sys.modules['octui.widgets.plain']\n"
            "from tui.app.app import OctuiApp\n"  # the whole app imports (Textual, the screens)
            # Help lists the keys of octui's widgets, found by their modules' names (octui.widgets…
            # installed): it listed the app's and the screen's only, no prompt key.
            "from tui.screens.help import is_ours\n"
            "from widgets.composer.composer import Composer\n"
            "from textual.widgets import TextArea\n"
            "assert is_ours(Composer) and not is_ours(TextArea), Composer.__module__\n"
            "print(tui.__file__)\n"
            "print(styles.__file__)\n")
    # The unpacked wheel goes first on the path; the checkout is not on it at all.
    run = subprocess.run([sys.executable, "-c", f"import sys; sys.path.insert(0, {str(installed)!r})\n"
                          + code], cwd=installed, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    tui_file, styles_file = run.stdout.split()
    assert Path(tui_file).is_relative_to(installed / "octui")
    assert (Path(styles_file).parent / "app.tcss").is_file()


def test_installed_console_script_answers_version(installed: Path) -> None:
    code = f"import sys; sys.path.insert(0, {str(installed)!r}); sys.argv = ['octui', '--version']\n" \
           "import octui; raise SystemExit(octui.main())"
    run = subprocess.run([sys.executable, "-c", code], cwd=installed, capture_output=True,
                         text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("octui ")

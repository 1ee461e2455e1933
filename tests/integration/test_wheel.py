"""First contact from a package index: the wheel built from this checkout, installed into a fresh
virtual environment outside it, runs `ragwire init`, `ingest`, `query` in an empty folder, offline.

The fresh environment gets ragwire from the wheel only; its dependencies are read from this
environment's site-packages (appended by a .pth line, which does not run this checkout's
editable-install hook), so the test needs no package index.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from ..conftest import EXAMPLES, REPO


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    build = subprocess.run([sys.executable, "-m", "pip", "wheel", str(REPO), "--no-deps", "--no-build-isolation",
                            "--no-index", "-q", "-w", str(out)], capture_output=True, text=True, timeout=300)
    if build.returncode != 0:
        pytest.fail(f"pip wheel failed: {build.stderr[-2000:]}")
    (built,) = out.glob("ragwire-*.whl")
    return built


def test_the_wheel_ships_the_templates_the_web_assets_and_py_typed(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    for name in ("ragwire/templates/config.yaml", "ragwire/templates/metadata.yaml", "ragwire/templates/golden.yaml",
                 "ragwire/py.typed", "ragwire/web/static/app.js"):
        assert name in names, name


def test_a_wheel_install_starts_with_ragwire_init_in_an_empty_folder(wheel, tmp_path, ragwire_home):
    venv = tmp_path / "fresh"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    clean = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # pip must not see another ragwire
    install = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps",
                              "--no-index", "-q", str(wheel)], capture_output=True, text=True, timeout=300,
                             env=clean)
    assert install.returncode == 0, install.stderr
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    Path(site, "zz_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")

    folder = tmp_path / "empty"
    folder.mkdir()
    env = {**clean, "RAGWIRE_HOME": str(ragwire_home), "HF_HUB_OFFLINE": "1"}

    def ragwire(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([str(venv / "bin" / "ragwire"), *args], capture_output=True, text=True,
                              cwd=folder, env=env, timeout=600)

    where = subprocess.run([str(python), "-c", "import ragwire; print(ragwire.__file__)"], capture_output=True,
                           text=True, cwd=folder, env=env)
    assert where.stdout.startswith(str(venv)), where.stdout + where.stderr  # the wheel, not this checkout

    shutil.copytree(EXAMPLES, folder / "docs")
    missing = ragwire("ingest", "docs")
    assert missing.returncode != 0
    assert "ragwire init" in missing.stderr

    made = ragwire("init")
    assert made.returncode == 0, made.stderr
    assert "wrote config.yaml" in made.stdout and (folder / "config.yaml").is_file()
    again = ragwire("init")
    assert again.returncode == 2 and "never overwrites" in again.stderr

    ingested = ragwire("ingest", "docs")
    assert ingested.returncode == 0, ingested.stderr
    assert "0 failed" in ingested.stdout
    answer = ragwire("query", "How long does it take to charge the battery?")
    assert answer.returncode == 0, answer.stderr
    assert "3 hours [1]" in answer.stdout and "user-guide.md" in answer.stdout

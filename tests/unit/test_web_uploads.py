"""The upload folder's naming rules and the one writer's job order (ragwire.web.uploads, ragwire.server.jobs)."""

from __future__ import annotations

import threading
import unicodedata
from types import SimpleNamespace

import pytest

from ragwire.errors import NotFoundError, ServerError
from ragwire.server.jobs import Writer
from ragwire.web.uploads import UploadRefused, check_upload_folder, clean_name, free_name, write_new


@pytest.mark.parametrize("name", ["John's notes.md", "Q3, final.md", "R&D plan.md", "report [draft].md",
                                  "#1 list.md", "50% off.md", "plan – 2024.md", "plan — final.md", "résumé.md",
                                  "a+b=c; d.md", "会议记录.md"])
def test_ordinary_names_are_accepted_as_they_are(name):
    assert clean_name(name) == name


def test_a_decomposed_name_is_stored_composed():
    assert clean_name(unicodedata.normalize("NFD", "résumé.md")) == "résumé.md"


@pytest.mark.parametrize(("name", "message"), [
    ("../escape.md", "path separator"), ("a\\b.md", "path separator"), (".env", "start with a dot"),
    ("tab\there.md", "control character"), ("bell\x07.md", "control character"), ("nul.txt", "reserved device"),
    ("COM1.md", "reserved device"), ("trailing.md ", "end with a space"), ("", "has no name"),
    ("x" * 300 + ".md", "over 255 bytes"),
])
def test_names_that_could_name_another_place_or_hide_are_refused(name, message):
    with pytest.raises(UploadRefused, match=message):
        clean_name(name)


def test_an_existing_name_gets_the_next_free_number(tmp_path):
    write_new(tmp_path, "report.pdf", b"1")
    assert free_name(tmp_path, "report.pdf") == "report (2).pdf"
    write_new(tmp_path, "report (2).pdf", b"2")
    assert free_name(tmp_path, "report.pdf") == "report (3).pdf"
    with pytest.raises(FileExistsError):
        write_new(tmp_path, "report.pdf", b"3")  # never over an existing file
    assert (tmp_path / "report.pdf").read_bytes() == b"1"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report (2).pdf", "report.pdf"]


def test_an_upload_folder_overlapping_a_synced_folder_is_refused_unless_allowed(tmp_path):
    sources = [SimpleNamespace(type="local", path=tmp_path / "docs"), SimpleNamespace(type="s3", path=None)]
    for folder in (tmp_path / "docs", tmp_path / "docs" / "uploads", tmp_path):
        with pytest.raises(ServerError, match=r"--upload-dir .* overlaps the synced source folder"):
            check_upload_folder(folder, sources)
        check_upload_folder(folder, sources, allowed=True)
    check_upload_folder(tmp_path / "uploads", sources)


def test_the_writer_runs_jobs_one_at_a_time_in_order_and_records_failures():
    writer = Writer()
    running, order = threading.Lock(), []

    def work(n):
        def run(job):
            assert running.acquire(blocking=False), "two jobs ran at once"
            try:
                order.append(n)
                if n == 2:
                    raise ValueError("file 2 is damaged")
                return {"n": n}
            finally:
                running.release()
        return run

    jobs = [writer.submit("test", work(n)) for n in range(5)]
    for job in jobs:
        while not writer.wait(job, 1.0):
            pass
    assert order == [0, 1, 2, 3, 4]
    assert [j.state for j in jobs] == ["done", "done", "failed", "done", "done"]
    assert jobs[2].to_dict()["error"] == "file 2 is damaged" and jobs[3].result == {"n": 3}
    assert writer.get(jobs[0].id) is jobs[0]
    with pytest.raises(NotFoundError, match="no job 'nope'"):
        writer.get("nope")
    writer.stop()

"""The help speaks the README's language: the experiment is "the note's",
and the desktop flags are listed."""

from __future__ import annotations

from support.cli import run_many


def test_help_says_the_note_not_the_seed(tmp_path):
    top, train, explain = run_many([(["--help"], tmp_path), (["train", "--help"], tmp_path),
                                    (["explain", "--help"], tmp_path)])
    for done in (top, train, explain):
        assert done.returncode == 0, done.stderr
        assert "the seed's" not in done.stdout and "as the seed" not in done.stdout
        assert "the seed names" not in " ".join(done.stdout.split())
    assert "train once (the note's experiment by default)" in " ".join(top.stdout.split())
    assert "--install-desktop" in top.stdout and "--uninstall-desktop" in top.stdout
    assert "as the note" in " ".join(train.stdout.split())

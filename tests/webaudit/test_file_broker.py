"""The embedded setup's file broker: a message is visible to consumers only once written whole, each is taken
by exactly one consumer, and an unreadable file is dropped, not fatal (webaudit/broker.py)."""

from __future__ import annotations

import os
import threading
import time
from queue import Empty

import pytest
from kombu import Connection

import webaudit.broker as broker


@pytest.fixture
def folders(tmp_path):
    for name in ("queue", "processed", "control"):
        (tmp_path / name).mkdir()
    return tmp_path


def channel(folders):
    connection = Connection(
        "filesystem://",
        transport="webaudit.broker:Transport",
        transport_options={
            "data_folder_in": str(folders / "queue"),
            "data_folder_out": str(folders / "queue"),
            "processed_folder": str(folders / "processed"),
            "control_folder": str(folders / "control"),
            "store_processed": False,
        },
    )
    return connection, connection.default_channel


def test_a_message_being_written_is_not_handed_out(folders, monkeypatch):
    connection, producer = channel(folders)
    _, consumer = channel(folders)
    renamed = threading.Event()
    real_replace = os.replace

    def slow_replace(source, target):
        time.sleep(0.5)  # the file is written, not yet in place: what a consumer polling now must not see
        real_replace(source, target)
        renamed.set()

    monkeypatch.setattr(broker.os, "replace", slow_replace)
    writer = threading.Thread(target=producer._put, args=("default", {"body": "x" * 100_000}))
    writer.start()
    time.sleep(0.1)
    with pytest.raises(Empty):
        consumer._get("default")
    writer.join()
    assert renamed.is_set()
    assert consumer._get("default") == {"body": "x" * 100_000}
    connection.release()


def test_every_message_is_taken_by_exactly_one_of_several_consumers(folders):
    connection, producer = channel(folders)
    sent = 300
    taken: list[int] = []

    def consume() -> None:
        _, mine = channel(folders)
        idle_since = time.monotonic()
        while time.monotonic() - idle_since < 1.0:
            try:
                taken.append(mine._get("default")["n"])
                idle_since = time.monotonic()
            except Empty:
                time.sleep(0.01)

    consumers = [threading.Thread(target=consume) for _ in range(3)]
    for thread in consumers:
        thread.start()
    for number in range(sent):
        producer._put("default", {"n": number, "pad": "y" * 5000})
    for thread in consumers:
        thread.join()
    assert sorted(taken) == list(range(sent))
    assert os.listdir(folders / "processed") == []
    connection.release()


def test_a_file_that_is_not_a_message_is_dropped_and_the_next_message_handed_out(folders, caplog):
    connection, producer = channel(folders)
    (folders / "queue" / "-garbage.default.msg").write_bytes(b"")
    producer._put("default", {"n": 1})
    assert producer._get("default") == {"n": 1}
    assert "not JSON" in caplog.text
    connection.release()

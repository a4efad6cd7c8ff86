"""The embedded setup's broker: kombu's filesystem transport, with every message file written whole before a
consumer can see it.

kombu writes a message straight into its final name in the queue folder (open, lock, write), and a consumer
lists the folder and takes any file with a queue's name without locking it: a file taken between its creation
and its write is empty, its JSON does not parse, and the worker died with "Unrecoverable error:
JSONDecodeError" right after beat sent a task (issue 18). Here a message is written to a hidden temporary file
in the same folder and renamed into place (a rename is atomic on one filesystem), and a consumer takes a file
by renaming it into the processed folder beside the queue (not across filesystems into /tmp, where a copy is
not atomic), so exactly one consumer gets each message, whole. A message that still cannot be read (a file
put there by hand) is logged and dropped: a worker never dies of one.
"""

from __future__ import annotations

import contextlib
import logging
import os
import tempfile
import uuid
from queue import Empty
from time import monotonic

from kombu.exceptions import ChannelError
from kombu.transport import filesystem
from kombu.utils.encoding import bytes_to_str, str_to_bytes
from kombu.utils.json import dumps, loads

log = logging.getLogger(__name__)


class Channel(filesystem.Channel):
    def _put(self, queue, payload, **kwargs):
        folder = self.data_folder_out
        name = f"{round(monotonic() * 1000)}_{uuid.uuid4()}.{queue}.msg"
        # ".<random>.part": a name no consumer takes (kombu matches "<anything>.<queue>.msg" after the first dot).
        handle, temporary = tempfile.mkstemp(dir=folder, prefix=".", suffix=".part")
        try:
            with os.fdopen(handle, "wb") as stream:
                stream.write(str_to_bytes(dumps(payload)))
            os.replace(temporary, os.path.join(folder, name))
        except OSError as exc:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            raise ChannelError(f"Cannot add file {name!r} to directory") from exc

    def _get(self, queue):
        wanted = f"{queue}.msg"
        for name in sorted(os.listdir(self.data_folder_in)):
            if name.partition(".")[2] != wanted:
                continue
            taken = os.path.join(self.processed_folder, f"{os.getpid()}-{uuid.uuid4().hex}-{name}")
            try:
                os.rename(os.path.join(self.data_folder_in, name), taken)
            except OSError:
                continue  # another consumer took it first
            try:
                with open(taken, "rb") as stream:
                    payload = stream.read()
            except OSError as exc:
                raise ChannelError(f"Cannot read file {taken!r} from queue.") from exc
            finally:
                if not self.store_processed:
                    with contextlib.suppress(OSError):
                        os.remove(taken)
            try:
                return loads(bytes_to_str(payload))
            except ValueError:
                log.error(
                    "broker: dropped message file %s of queue %s: not JSON (%d bytes)",
                    name,
                    queue,
                    len(payload),
                )
        raise Empty()


class Transport(filesystem.Transport):
    Channel = Channel

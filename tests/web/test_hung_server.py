"""A server process that hangs behind the deployment's nginx (its kernel still takes the
connection): a phone's "Play now" is told that the server did not answer in time, in the page's
language, and can be tapped again; before, nginx held the request for an hour and the button
stayed greyed out."""

from __future__ import annotations

import os
import signal
from pathlib import Path
from typing import Any

from callbreak.i18n import catalogue

from ..scale.procs import Nginx
from .conftest import free_port, start_server, stop_server
from .test_phone_hand import PHONE


def test_play_now_that_no_process_answers_in_time_is_said_and_can_be_tapped_again(
    browser: Any, tmp_path: Path
) -> None:
    port = free_port()
    proc = start_server(port, str(tmp_path / "tables.sqlite"), str(tmp_path / "server.log"))
    nginx: Nginx | None = None
    ctx = browser.new_context(**PHONE, locale="hi-IN")
    try:
        nginx = Nginx([port], plain_wait=2)  # (the site's 15 s: tests/scale/test_nginx.py waits it out)
        page = ctx.new_page()
        page.goto(nginx.base + "/")
        button = page.locator("[data-testid=play-now]")
        button.wait_for()
        os.kill(proc.pid, signal.SIGSTOP)  # hung: a wedged event loop, a frozen VM
        box = button.bounding_box()
        assert box is not None
        page.touchscreen.tap(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        said = catalogue("hi")["error.gateway"]
        page.wait_for_function(
            "said => document.querySelector('.toast.show')?.textContent.includes(said)", arg=said, timeout=45_000
        )
        assert button.is_enabled()
        assert page.url.rstrip("/") == nginx.base  # still home: no table was opened
    finally:
        os.kill(proc.pid, signal.SIGCONT)
        ctx.close()
        if nginx is not None:
            nginx.stop()
        stop_server(proc)

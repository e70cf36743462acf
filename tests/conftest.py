import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"

# Tests started in the background of a non-interactive shell (`.ci/run &`) inherit SIGINT
# ignored, and so would every ccsim process they start; the interrupt tests need SIGINT.
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


def ccsim_cli(*args, cwd=None, timeout=300):
    """Runs the installed `ccsim` console script (falls back to `python -m ccsim`)."""
    exe = Path(sys.executable).with_name("ccsim")
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "ccsim"]
    env = dict(os.environ, COLUMNS="200")
    return subprocess.run(cmd + [str(a) for a in args], capture_output=True, text=True, cwd=cwd, timeout=timeout, env=env)


@pytest.fixture
def cli():
    return ccsim_cli


# Two CBR flows of 8 Mb/s into a 10 Mb/s bottleneck for 2 s: its queue fills and drops
# (the default DropTail: no queue table, for tests that set one).
OVERLOADED_DUMBBELL = """
name = "overloaded"
[simulation]
duration = "2s"
[dumbbell]
senders = 2
access_rate = "100Mbps"
access_delay = "1ms"
bottleneck_rate = "10Mbps"
bottleneck_delay = "5ms"
[[flows]]
kind = "cbr"
src = "s{i}"
dst = "d{i}"
count = 2
rate = "8Mbps"
"""


TWO_NODE = """
name = "two-node"
nodes = ["a", "b"]
[simulation]
duration = "1s"
seed = 3
[[links]]
a = "a"
b = "b"
rate = "10Mbps"
delay = "35ms"
queue = { kind = "droptail", limit = 100 }
[[flows]]
name = "f"
kind = "cbr"
src = "a"
dst = "b"
rate = "1Mbps"
packet_size = "1500B"
"""


@pytest.fixture
def two_node(tmp_path):
    p = tmp_path / "two.toml"
    p.write_text(TWO_NODE)
    return p

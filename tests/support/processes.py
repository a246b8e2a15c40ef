"""The processes a test starts, seen through Linux's /proc: alive, reaped, whose children, which pids."""

from __future__ import annotations

from pathlib import Path

from tests.support.polling import eventually


def pid_alive(pid: int) -> bool:
    """True while the process exists and is not a zombie waiting to be reaped by someone else."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return False
    state = stat.rsplit(")", 1)[1].split()[0]
    return state not in ("Z", "X")


def reaped(pid: int) -> bool:
    """True once the process is gone for good: exited and waited for by its parent (no zombie left)."""
    return not Path(f"/proc/{pid}").exists()


def children_of(pid: int) -> list[int]:
    """The pids whose parent is `pid` (Linux /proc)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (FileNotFoundError, ProcessLookupError):
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


async def read_pids(path: Path, count: int, timeout: float = 10.0) -> list[int]:
    """The pids a scripted agent wrote to `path`, once it wrote all `count` of them."""

    def ready() -> bool:
        return path.exists() and len(path.read_text().split()) == count

    await eventually(ready, timeout, f"{count} pid(s) in {path}")
    return [int(p) for p in path.read_text().split()]

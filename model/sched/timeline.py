"""A cfs_rq's rbtree, as both CFS versions use it: tasks sorted by key, equal keys in insertion order."""

from __future__ import annotations

from bisect import bisect_left

from model.task import Task

Node = tuple[int, int]  # (key, insertion sequence)


class Timeline:
    """A cfs_rq's rbtree, as a sorted list of ``(key, seq)`` nodes and their tasks.

    ``seq`` grows with every insertion, so a task inserted with a key equal to existing ones lands to
    their right, as ``__enqueue_entity()`` does ("nodes with the same key stay together").
    """

    __slots__ = ("_nodes", "_seq", "_tasks", "first", "size")

    def __init__(self) -> None:
        self._nodes: list[Node] = []
        self._tasks: list[Task] = []
        self._seq = 0
        self.size = 0  # len(), as a plain attribute: read at every yield and tick
        self.first: Task | None = None  # leftmost(), as a plain attribute: read at every pick

    def __len__(self) -> int:
        return self.size

    def insert(self, task: Task, key: int) -> Node:
        seq = self._seq + 1
        self._seq = seq
        node = (key, seq)
        nodes = self._nodes
        i = bisect_left(nodes, node)
        nodes.insert(i, node)
        tasks = self._tasks
        tasks.insert(i, task)
        self.size += 1
        self.first = tasks[0]
        return node

    def remove(self, node: Node) -> None:
        nodes = self._nodes
        i = bisect_left(nodes, node)
        del nodes[i]
        tasks = self._tasks
        del tasks[i]
        self.size -= 1
        self.first = tasks[0] if tasks else None

    def move(self, node: Node, task: Task, key: int) -> Node:
        """``remove(node)`` then ``insert(task, key)``, in one call (a requeue at every yield and tick)."""
        nodes, tasks = self._nodes, self._tasks
        i = bisect_left(nodes, node)
        del nodes[i]
        del tasks[i]
        seq = self._seq + 1
        self._seq = seq
        new = (key, seq)
        i = bisect_left(nodes, new)
        nodes.insert(i, new)
        tasks.insert(i, task)
        self.first = tasks[0]
        return new

    def leftmost(self) -> Task | None:
        return self.first

    def rightmost(self) -> Task | None:
        return self._tasks[-1] if self._tasks else None

    def first_other(self, task: Task) -> Task | None:
        """The leftmost task that is not ``task``."""
        return next((t for t in self._tasks if t is not task), None)

    def tasks(self) -> tuple[Task, ...]:
        return tuple(self._tasks)

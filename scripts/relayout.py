#!/usr/bin/env python3
"""One-shot re-layout of memoryd into folders named after what flows through them (issue 19), no behaviour change.

Run once, from the repository root, on a clean tree:

    .venv/bin/python scripts/relayout.py --dry-run   # print the mapping, check that every module is mapped
    .venv/bin/python scripts/relayout.py             # git mv, new __init__.py files, every reference rewritten

then `.venv/bin/pip install --no-deps -e .` (the `memoryctl` entry point moved to `memoryd.ctl.cli:main`),
`make lint` and the tests. Nothing is committed; `git diff --stat -M` shows the moves.

What it does, in order:
1. maps every file under memoryd/ (plus inferd/schemas.py, memoryd's digest schema) to its new path. A folder
   rule moves everything inside it, so files added to memoryd/writer/ by a merge follow it; top-level
   `console_*.py` and `cli_*.py` files follow their families. A module no rule covers stops the run (exit 2).
2. `git mv` per file, then writes the `__init__.py` of each new package.
3. rewrites every reference to a moved module across the tracked files: Python imports (through the AST, so
   `from memoryd import console_convert as cc` keeps its local name), dotted names in strings and comments
   (monkeypatch targets, `python -m memoryd.cli`, docstrings), pyproject.toml (entry points, import-linter
   contracts), docs, bench and scripts, and file paths such as `memoryd/readpath.py` or `writer/session.py`.
   Logger names (`logging.getLogger("memoryd.readpath")`) are left as they are: they are configuration that
   operators and Diagnose's error ring (`memoryd.indexer`) match on, so renaming them would change behaviour.
4. points the citations of design notes that are not in the repository (DESIGN §3/§4, STYLE.md,
   reference/locomo-baselines.md, osaurus-internals §3.3) into docs/ (architecture.md, distillation.md, references.md).
5. adds the layering contracts to pyproject.toml (the database contract's exceptions are the moved tree's own
   direct imports, so it holds on the day of the move; new ones are printed), then sorts imports and formats the
   touched Python files with the venv's ruff (import order changes when `memoryd.readpath` becomes
   `memoryd.read.assemble`), and runs lint-imports.

It refuses to run twice (exit 3): the old modules are gone and the new folders exist after the first run.
Exit 2: a file under memoryd/ no rule maps (listed). Exit 4: moved, but `lint-imports` reports a broken contract.
Stdlib only; ruff is called as a program when .venv/bin/ruff exists.
"""

from __future__ import annotations

import argparse
import ast
import io
import re
import subprocess
import sys
import tokenize
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

# ---------------------------------------------------------------------------------------------------------------
# The mapping. A key ending in "/" is a folder rule: every file below it moves, keeping its path relative to the
# folder, unless a file rule (or a deeper folder rule) says otherwise. The most specific rule wins.
# A rule mapping a path to itself says "stays here" (so the file counts as mapped).
RULES: dict[str, str] = {
    # -- the package root keeps only the composition root, settings, shared dataclasses and the client
    "memoryd/__init__.py": "memoryd/__init__.py",
    "memoryd/__main__.py": "memoryd/__main__.py",
    "memoryd/app.py": "memoryd/app.py",
    "memoryd/config.py": "memoryd/config.py",
    "memoryd/domain.py": "memoryd/domain.py",
    "memoryd/client.py": "memoryd/client.py",
    "memoryd/client_security.py": "memoryd/client_security.py",
    "memoryd/client/": "memoryd/client/",  # in case the one-client work makes client.py a package
    "memoryd/py.typed": "memoryd/py.typed",
    # the one text module (fold, shingles, Jaccard, stop words): a leaf every layer, retrieval included, imports
    "memoryd/text.py": "memoryd/text.py",
    # -- api/: the gRPC face; protobuf and grpc stop here
    "memoryd/service.py": "memoryd/api/memory_service.py",
    "memoryd/console.py": "memoryd/api/console_service.py",
    "memoryd/writer_rpcs.py": "memoryd/api/write_rpcs.py",
    "memoryd/readpath_rpcs.py": "memoryd/api/read_rpcs.py",
    "memoryd/consolidate_rpcs.py": "memoryd/api/consolidate_rpcs.py",
    "memoryd/console_security.py": "memoryd/api/security_rpcs.py",
    "memoryd/convert.py": "memoryd/api/memory_convert.py",
    "memoryd/console_convert.py": "memoryd/api/console_convert.py",
    "memoryd/storage_errors.py": "memoryd/api/storage_errors.py",
    "memoryd/security/guard.py": "memoryd/api/degraded_guard.py",
    # -- wiring/: app.py's helpers that build one part each from settings (they import across layers)
    "memoryd/writer_wiring.py": "memoryd/wiring/writer.py",
    "memoryd/console_wiring.py": "memoryd/wiring/console.py",
    "memoryd/security/wiring.py": "memoryd/wiring/security.py",
    # -- write/: where a turn goes: BufferTurn → transcript row → debounce → distillation → episode and facts
    "memoryd/turns.py": "memoryd/write/buffer_turn.py",
    "memoryd/writer/": "memoryd/write/",
    "memoryd/writer/buffer.py": "memoryd/write/debounce.py",
    "memoryd/writer/store.py": "memoryd/write/store_protocol.py",
    "memoryd/writer/schema.py": "memoryd/write/digest_caps.py",
    "inferd/schemas.py": "memoryd/write/digest_schema.py",
    # -- read/: where a block is assembled: gate → planner → search → block
    "memoryd/readpath.py": "memoryd/read/assemble.py",
    "memoryd/readpath_store.py": "memoryd/read/memory_reader.py",
    "memoryd/readpath_identity.py": "memoryd/read/identity_similarity.py",
    "memoryd/search.py": "memoryd/read/search.py",
    "memoryd/keyword_stats.py": "memoryd/read/keyword_stats.py",
    # the llm gate calls inferd over gRPC: it is orchestration, not scoring, so it leaves retrieval/
    "memoryd/retrieval/gate_llm.py": "memoryd/read/gate_llm.py",
    # -- retrieval/: the pure scoring library stays
    "memoryd/retrieval/": "memoryd/retrieval/",
    "memoryd/retrieval/context_window.py": "memoryd/retrieval/turn_neighbours.py",
    # -- storage/: SQLite, schema, migrations, one store per table family
    "memoryd/storage/": "memoryd/storage/",
    "memoryd/storage/turns.py": "memoryd/storage/transcript.py",
    "memoryd/storage/writer_store.py": "memoryd/storage/distillation.py",
    "memoryd/storage/readpath_queries.py": "memoryd/storage/read_queries.py",
    # -- vectors/: embeddings from inferd, per-agent faiss indexes, the background indexer
    "memoryd/vectors/": "memoryd/vectors/",
    "memoryd/embedding.py": "memoryd/vectors/embedding.py",
    "memoryd/indexer.py": "memoryd/vectors/indexer.py",
    # -- consolidate/ and security/ stay (minus what moved to api/ and wiring/ above)
    "memoryd/consolidate/": "memoryd/consolidate/",
    "memoryd/security/": "memoryd/security/",
    "memoryd/security/convert.py": "memoryd/security/encryption.py",
    # -- console/: the Memory Console's domain logic (its servicer is in api/)
    "memoryd/console_core.py": "memoryd/console/core.py",
    "memoryd/console_errors.py": "memoryd/console/recent_errors.py",
    "memoryd/console_export.py": "memoryd/console/export.py",
    "memoryd/console_health.py": "memoryd/console/health.py",
    "memoryd/console_import_apply.py": "memoryd/console/import_apply.py",
    "memoryd/console_import_parse.py": "memoryd/console/import_parse.py",
    "memoryd/console_store.py": "memoryd/console/queries.py",
    "memoryd/console_transfer.py": "memoryd/console/transfer.py",
    "memoryd/console_types.py": "memoryd/console/records.py",
    "memoryd/console_vectors.py": "memoryd/console/vectors.py",
    "memoryd/redact.py": "memoryd/console/redact.py",
    # -- ctl/: memoryctl
    "memoryd/cli.py": "memoryd/ctl/cli.py",
    "memoryd/cli_commands.py": "memoryd/ctl/commands.py",
    "memoryd/cli_config.py": "memoryd/ctl/settings.py",
    "memoryd/cli_ingest.py": "memoryd/ctl/ingest.py",
    "memoryd/cli_io.py": "memoryd/ctl/plumbing.py",
    "memoryd/cli_render.py": "memoryd/ctl/render.py",
    "memoryd/cli_security.py": "memoryd/ctl/security.py",
    "memoryd/cli_upkeep.py": "memoryd/ctl/upkeep.py",
    # -- runtime/: process-level tuning and the memory debug probe
    "memoryd/malloc_tuning.py": "memoryd/runtime/malloc_tuning.py",
    "memoryd/memtrace.py": "memoryd/runtime/memtrace.py",
}

#: Rules for files that a merge may or may not bring (no note when they are absent).
OPTIONAL = frozenset({"memoryd/py.typed", "memoryd/text.py"})

#: Top-level families a merge may grow: memoryd/console_foo.py → memoryd/console/foo.py (reported as such).
FAMILIES: dict[str, str] = {
    "memoryd/console_": "memoryd/console/",
    "memoryd/cli_": "memoryd/ctl/",
    "memoryd/readpath_": "memoryd/read/",
    "memoryd/client_": "memoryd/client_",  # more client mixins stay beside client.py
}

#: Docstrings of the packages the move creates (house style: the first line says what the package holds).
NEW_PACKAGES: dict[str, str] = {
    "memoryd/api": "memoryd's gRPC face: the two servicers and proto ⇄ domain conversion.\n\n"
    "Protobuf and grpc stop here (and at memoryd.client and memoryctl, which are clients).",
    "memoryd/wiring": "Builders app.py composes: one part each (writer, console, store security) from settings.",
    "memoryd/read": "The read path: AssembleContext's gate → planner → hybrid search → block, and InjectMemory.",
    "memoryd/console": "The Memory Console's domain logic: inspect, search, diagnose, export and import.\n\n"
    "Its servicer is memoryd.api.console_service; nothing here imports protobuf.",
    "memoryd/ctl": "memoryctl: the command-line client for memoryd's admin and console operations.",
    "memoryd/runtime": "Process-level concerns of memoryd: glibc malloc tuning and the memory debug probe.",
}

#: Folders that exist only after a run; any of them present means the move was already made.
MARKERS = ("memoryd/api", "memoryd/read", "memoryd/write", "memoryd/ctl", "memoryd/wiring", "memoryd/runtime")

#: Files the rewrite leaves alone: this script, and the pages written for the new layout.
SKIP_REWRITE = frozenset({"scripts/relayout.py", "docs/architecture.md", "docs/references.md"})
SKIP_PREFIXES = ("protos/gen/", ".git/")

#: Citations of design notes that are not in the repository, and where the same content lives in docs/.
CITATIONS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"\(DESIGN §3\)"), "(docs/architecture.md, Data)"),
    (re.compile(r"DESIGN §4, shared with inferd"), "docs/distillation.md"),
    (
        re.compile(
            r"JSON schemas inferd callers share: the distillation digest of DESIGN §4 \(memoryd's writer reuses it\)\."
        ),
        "The distillation digest's JSON schema (docs/distillation.md); its bounds are the caps memoryd's parser "
        "enforces.",
    ),
    (re.compile(r"Third-party boundaries from STYLE\.md"), "Boundaries from docs/architecture.md (Layering)"),
    (re.compile(r"reference/locomo-baselines\.md"), "docs/references.md (LoCoMo baselines)"),
    (re.compile(r"osaurus-internals §3\.3"), "docs/references.md"),
]

#: pyproject edits that only make sense once inferd/schemas.py is memoryd's (exact text; warned when absent).
PYPROJECT_EDITS: list[tuple[str, str]] = [
    ("# inferd.schemas is stdlib-only data (the distillation JSON schema) shared with the writer.\n", ""),
    (
        'ignore_imports = ["memoryd.** -> inferd.client", "memoryd.** -> inferd.schemas"]',
        'ignore_imports = ["memoryd.** -> inferd.client"]',
    ),
]

#: Layering contracts appended to pyproject.toml. Where a contract does not hold yet without code changes, its
#: ignore_imports lists exactly the imports that break it today (a ratchet: a new one fails lint).
CONTRACTS = """
# ---------------------------------------------------------------------------------------------------------------
# memoryd's layering (issue 19). app.py and wiring/ compose; api/ is the gRPC face; write/, read/, console/ and
# consolidate/ are the domain; retrieval/ is pure scoring; storage/ holds the database; memoryctl (ctl/) and
# client.py are clients and may speak gRPC.

[[tool.importlinter.contracts]]
name = "protobuf and grpc stop at memoryd.api (and the client side: client.py, ctl/)"
type = "forbidden"
source_modules = [
    "memoryd.write", "memoryd.read", "memoryd.retrieval", "memoryd.console", "memoryd.consolidate",
    "memoryd.storage", "memoryd.vectors", "memoryd.security", "memoryd.runtime", "memoryd.domain", "memoryd.config",
__TEXT_MODULE__]
forbidden_modules = ["grpc", "osaurus", "google"]
# servicekit's typed errors carry grpc status codes, so everything reaches grpc indirectly; direct imports only.
allow_indirect_imports = true

[[tool.importlinter.contracts]]
name = "only memoryd.storage opens the database (handle, peewee models, SQLite drivers)"
type = "protected"
protected_modules = [
    "memoryd.storage.db", "memoryd.storage.keyed", "memoryd.storage.tables", "peewee", "playhouse", "sqlcipher3",
    "sqlite3",
]
allowed_importers = ["memoryd.storage"]
# Debt for issue 19's storage step: SQL still lives in console/, consolidate/ and security/.
ignore_imports = [
__STORAGE_DEBT__
]
unmatched_ignore_imports_alerting = "warn"

[[tool.importlinter.contracts]]
name = "memoryd.retrieval is pure scoring: it imports nothing above it"
type = "forbidden"
source_modules = ["memoryd.retrieval"]
forbidden_modules = [
    "memoryd.app", "memoryd.wiring", "memoryd.api", "memoryd.client", "memoryd.ctl", "memoryd.write",
    "memoryd.read", "memoryd.console", "memoryd.consolidate", "memoryd.storage", "memoryd.vectors",
    "memoryd.security", "grpc", "osaurus", "peewee", "faiss",
]

[[tool.importlinter.contracts]]
# Read downwards: each layer may import the ones below it, never one above. read/ sits above write/ because the
# block assembler reuses the writer's credential redaction (write.grounding.secrets).
name = "memoryd's layers, top to bottom (docs/architecture.md, Layering)"
type = "layers"
layers = [
    "memoryd.app", "memoryd.wiring", "memoryd.api", "memoryd.console", "memoryd.consolidate", "memoryd.read",
    "memoryd.write", "memoryd.security", "memoryd.vectors", "memoryd.storage", "memoryd.retrieval",
]
# Debt: the writer's SQLite store implements write.store_protocol and imports its dataclasses; the protocol's
# dataclasses belong in memoryd.domain (or storage's typed interfaces, issue 19's storage step).
ignore_imports = ["memoryd.storage.distillation -> memoryd.write.store_protocol"]
unmatched_ignore_imports_alerting = "warn"

[[tool.importlinter.contracts]]
name = "memoryd.api is imported only by the composition root and the client"
type = "protected"
protected_modules = ["memoryd.api"]
allowed_importers = ["memoryd.app", "memoryd.wiring", "memoryd.client"]

[[tool.importlinter.contracts]]
name = "plugin_host.sdk is self-contained (what plugins import)"
type = "forbidden"
source_modules = ["plugin_host.sdk"]
forbidden_modules = ["plugin_host.*", "memoryd", "inferd", "gateway", "servicekit", "osaurus", "grpc", "google"]
"""

#: The database's modules: only memoryd.storage may import them directly.
DATABASE_MODULES = (
    "memoryd.storage.db",
    "memoryd.storage.keyed",
    "memoryd.storage.tables",
    "peewee",
    "playhouse",
    "sqlcipher3",
    "sqlite3",
)

#: Imports breaking "only memoryd.storage opens the database" on the tree this script was written against. The run
#: lists the moved tree's own (so the contract holds on the day of the move) and names any not in this list.
STORAGE_DEBT = [
    "memoryd.console.export -> memoryd.storage.db",
    "memoryd.console.health -> memoryd.storage.db",
    "memoryd.console.import_apply -> memoryd.storage.db",
    "memoryd.console.import_parse -> memoryd.storage.db",
    "memoryd.console.queries -> memoryd.storage.db",
    "memoryd.console.vectors -> memoryd.storage.db",
    "memoryd.consolidate.context -> memoryd.storage.db",
    "memoryd.consolidate.runner -> memoryd.storage.db",
    "memoryd.consolidate.state -> memoryd.storage.db",
    "memoryd.consolidate.wal -> memoryd.storage.db",
    "memoryd.security.encryption -> memoryd.storage.db",
    "memoryd.security.encryption -> memoryd.storage.keyed",
    "memoryd.security.manager -> memoryd.storage.db",
    "memoryd.security.opener -> memoryd.storage.keyed",
    "memoryd.api.degraded_guard -> memoryd.storage.keyed",
    "memoryd.consolidate.runner -> sqlite3",
]

EXIT_OK = 0
EXIT_UNMAPPED = 2
EXIT_REFUSED = 3
EXIT_CONTRACTS = 4


# ---------------------------------------------------------------------------------------------------------------
# Planning: which file goes where.
@dataclass(frozen=True)
class Move:
    """One file's move; `how` says which rule placed it (shown by --dry-run)."""

    old: str
    new: str
    how: str


class UnmappedError(Exception):
    """Files under memoryd/ that no rule covers."""

    def __init__(self, paths: Sequence[str]) -> None:
        super().__init__(f"{len(paths)} unmapped")
        self.paths = list(paths)


def git(*args: str) -> str:
    """Runs git in the repository and returns its stdout (raises on failure)."""
    return subprocess.run(["git", *args], cwd=REPO, check=True, capture_output=True, text=True).stdout


def tracked_files() -> list[str]:
    """Every file git tracks (deleted-but-unstaged ones excluded)."""
    return [p for p in git("ls-files", "-z").split("\0") if p and (REPO / p).is_file()]


def place(path: str) -> tuple[str, str] | None:
    """The new path of `path` and the rule that gave it, or None when no rule covers it."""
    if path in RULES:
        return RULES[path], "file"
    folders = [key for key in RULES if key.endswith("/") and path.startswith(key)]
    if folders:
        folder = max(folders, key=len)
        return RULES[folder] + path[len(folder) :], f"folder {folder}"
    if path.count("/") == 1 and path.endswith(".py"):
        for prefix, target in FAMILIES.items():
            if path.startswith(prefix):
                return target + path[len(prefix) :], f"family {prefix}*"
    return None


def plan(files: Iterable[str]) -> list[Move]:
    """Moves for every file under memoryd/ (and the explicitly mapped files outside it)."""
    moves: list[Move] = []
    unmapped: list[str] = []
    for path in sorted(files):
        if not (path.startswith("memoryd/") or path in RULES):
            continue
        if "/__pycache__/" in path:
            continue
        placed = place(path)
        if placed is None:
            unmapped.append(path)
            continue
        moves.append(Move(path, placed[0], placed[1]))
    if unmapped:
        raise UnmappedError(unmapped)
    targets: dict[str, str] = {}
    for move in moves:
        if move.new in targets:
            raise SystemExit(f"relayout: {move.old} and {targets[move.new]} would both become {move.new}")
        targets[move.new] = move.old
    return moves


def module_name(path: str) -> str | None:
    """`memoryd/read/search.py` → `memoryd.read.search`; a package's __init__ names the package."""
    if not path.endswith(".py"):
        return None
    parts = path[: -len(".py")].split("/")
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


@dataclass
class Renames:
    """Old → new names derived from the moves: dotted modules, file paths and package folders."""

    modules: dict[str, str]
    files: dict[str, str]
    folders: dict[str, str]

    def dotted(self, name: str) -> str:
        """The new spelling of a dotted name, matched on whole segments by its longest module prefix."""
        parts = name.split(".")
        for cut in range(len(parts), 1, -1):
            prefix = ".".join(parts[:cut])
            if prefix in self.modules:
                return ".".join([self.modules[prefix], *parts[cut:]])
        return name

    def path(self, path: str) -> str:
        """The new spelling of a repository path (a file, or a package folder with or without a slash)."""
        if path in self.files:
            return self.files[path]
        parts = path.rstrip("/").split("/")
        for cut in range(len(parts), 1, -1):
            prefix = "/".join(parts[:cut])
            if prefix in self.folders:
                new = "/".join([self.folders[prefix], *parts[cut:]])
                return new + ("/" if path.endswith("/") else "")
        return path


def renames(moves: Sequence[Move]) -> Renames:
    """The rename tables of a plan (identity entries included, so longest-prefix matching stops at them)."""
    modules: dict[str, str] = {}
    files: dict[str, str] = {}
    folders: dict[str, str] = {}
    for move in moves:
        files[move.old] = move.new
        old_mod, new_mod = module_name(move.old), module_name(move.new)
        if old_mod and new_mod:
            modules[old_mod] = new_mod
        if move.old.endswith("/__init__.py") and move.new.endswith("/__init__.py"):
            folders[move.old.rsplit("/", 1)[0]] = move.new.rsplit("/", 1)[0]
    return Renames(modules, files, folders)


# ---------------------------------------------------------------------------------------------------------------
# Rewriting references.
DOTTED = re.compile(r"(?<![\w.])((?:memoryd|inferd)(?:\.[A-Za-z_]\w*)+)")
ROOTED_PATH = re.compile(r"(?<![\w./-])((?:memoryd|inferd)/(?:[\w]+/)*[\w]+(?:\.py)?/?)")
SUBDIR_PATH = re.compile(
    r"(?<![\w./-])((?:writer|storage|security|retrieval|vectors|consolidate)/(?:\w+/)*\w+\.py)"
)
BARE_FILE = re.compile(r"(?<![\w./-])(\w+\.py)\b")
LOGGER = re.compile(r"getLogger\(\s*[\"']([\w.]+)[\"']\s*\)")


class Rewriter:
    """Rewrites the references in one file's text; counts what it changed."""

    def __init__(self, names: Renames, bare_files: dict[str, str], logger_names: frozenset[str]) -> None:
        self.names = names
        self.bare_files = bare_files
        self.logger_names = logger_names

    # -- plain text (docs, toml, comments, strings)
    def text(self, text: str) -> str:
        """Every dotted name and path in `text`, in the new layout."""
        text = DOTTED.sub(lambda m: self.names.dotted(m.group(1)), text)
        text = ROOTED_PATH.sub(lambda m: self.names.path(m.group(1)), text)
        text = SUBDIR_PATH.sub(self._subdir, text)
        return BARE_FILE.sub(lambda m: self.bare_files.get(m.group(1), m.group(1)), text)

    def _subdir(self, match: re.Match[str]) -> str:
        old = "memoryd/" + match.group(1)
        new = self.names.files.get(old)
        return new[len("memoryd/") :] if new and new.startswith("memoryd/") else match.group(1)

    # -- Python
    def python(self, source: str) -> str:
        """Imports through the AST, then strings and comments token by token; code names are left alone."""
        source = self._imports(source)
        return self._tokens(source)

    def _imports(self, source: str) -> str:
        tree = ast.parse(source)
        lines, offsets = _lines(source)
        edits: list[tuple[int, int, str]] = []
        for node in ast.walk(tree):
            new: str | None = None
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                new = self._import_from(node, ast.get_source_segment(source, node) or "")
            elif isinstance(node, ast.Import):
                new = self._import(node)
            if new is None or not isinstance(node, ast.stmt):
                continue
            assert node.end_lineno is not None and node.end_col_offset is not None
            start = offsets[node.lineno - 1] + _char_col(lines[node.lineno - 1], node.col_offset)
            end = offsets[node.end_lineno - 1] + _char_col(lines[node.end_lineno - 1], node.end_col_offset)
            edits.append((start, end, new))
        for start, end, new in sorted(edits, reverse=True):
            source = source[:start] + new + source[end:]
        return source

    def _import_from(self, node: ast.ImportFrom, original: str) -> str | None:
        module = node.module or ""
        if module.split(".")[0] not in ("memoryd", "inferd"):
            return None
        groups: dict[str, list[str]] = {}
        for alias in node.names:
            full = f"{module}.{alias.name}"
            if alias.name != "*" and full in self.names.modules and self.names.modules[full] != full:
                parent, leaf = self.names.modules[full].rsplit(".", 1)
                local = alias.asname or alias.name
                groups.setdefault(parent, []).append(leaf if local == leaf else f"{leaf} as {local}")
            else:
                parent = self.names.dotted(module)
                groups.setdefault(parent, []).append(
                    alias.name if alias.asname is None else f"{alias.name} as {alias.asname}"
                )
        same_names = [
            alias.name if alias.asname is None else f"{alias.name} as {alias.asname}" for alias in node.names
        ]
        if list(groups) == [module] and groups[module] == same_names:
            return None
        if len(groups) == 1 and next(iter(groups.values())) == same_names:
            # only the module changes: keep the statement's own layout and comments
            header = re.compile(r"from\s+" + re.escape(module) + r"(?=\s)")
            return header.sub("from " + next(iter(groups)), original, count=1)
        indent = " " * node.col_offset
        multiline = "\n" in original
        statements = []
        for parent, names in groups.items():
            if multiline:
                body = "".join(f"{indent}    {name},\n" for name in names)
                statements.append(f"from {parent} import (\n{body}{indent})")
            else:
                statements.append(f"from {parent} import {', '.join(names)}")
        return ("\n" + indent).join(statements)

    def _import(self, node: ast.Import) -> str | None:
        changed = False
        parts = []
        for alias in node.names:
            new = self.names.dotted(alias.name)
            changed |= new != alias.name
            parts.append(new if alias.asname is None else f"{new} as {alias.asname}")
        if not changed:
            return None
        if any(alias.asname is None for alias in node.names):
            raise SystemExit(
                f"relayout: `import {', '.join(a.name for a in node.names)}` binds a dotted module name;"
                " rewrite it by hand (its attribute uses would change too)"
            )
        return "import " + ", ".join(parts)

    def _tokens(self, source: str) -> str:
        _, offsets = _lines(source)
        edits: list[tuple[int, int, str]] = []
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            if token.type not in (tokenize.STRING, tokenize.COMMENT):
                continue
            if token.type == tokenize.STRING and self._is_logger_name(token.string):
                continue
            new = self.text(token.string)
            if new != token.string:
                start = offsets[token.start[0] - 1] + token.start[1]
                end = offsets[token.end[0] - 1] + token.end[1]
                edits.append((start, end, new))
        for start, end, new in sorted(edits, reverse=True):
            source = source[:start] + new + source[end:]
        return source

    def _is_logger_name(self, literal: str) -> bool:
        try:
            value = ast.literal_eval(literal)
        except (ValueError, SyntaxError):
            return False
        return isinstance(value, str) and value in self.logger_names


def _lines(source: str) -> tuple[list[str], list[int]]:
    """The source's lines as ast and tokenize count them (split at "\\n" only) and each line's start offset."""
    lines = source.split("\n")
    lines = [line + "\n" for line in lines[:-1]] + [lines[-1]]
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    return lines, offsets


def _char_col(line: str, byte_col: int) -> int:
    """ast's col_offset counts UTF-8 bytes; string slicing counts characters."""
    return len(line.encode()[:byte_col].decode(errors="ignore"))


def bare_file_names(moves: Sequence[Move], all_files: Iterable[str]) -> dict[str, str]:
    """`readpath.py` → `read/assemble.py`, for top-level memoryd files whose name no other file in the repo has."""
    counts: dict[str, int] = {}
    for path in all_files:
        name = path.rsplit("/", 1)[-1]
        counts[name] = counts.get(name, 0) + 1
    out: dict[str, str] = {}
    for move in moves:
        if move.old.count("/") == 1 and move.old.startswith("memoryd/") and move.old != move.new:
            name = move.old.rsplit("/", 1)[-1]
            if counts.get(name) == 1 and name.endswith(".py") and name != "__init__.py":
                out[name] = move.new[len("memoryd/") :]
    return out


def logger_names(files: Iterable[str]) -> frozenset[str]:
    """Every literal logger name in the Python files (kept as they are: they are configuration, not paths)."""
    names: set[str] = set()
    for path in files:
        if path.endswith(".py"):
            names.update(LOGGER.findall((REPO / path).read_text(encoding="utf-8", errors="replace")))
    return frozenset(names)


def is_text(path: Path) -> str | None:
    """The file's text when it is UTF-8 without NUL bytes, else None."""
    data = path.read_bytes()
    if b"\0" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


# ---------------------------------------------------------------------------------------------------------------
# The run.
def already_done(files: Sequence[str]) -> list[str]:
    """Signs that the re-layout already ran on this tree."""
    reasons = [f"{marker}/ exists" for marker in MARKERS if (REPO / marker).is_dir()]
    if "memoryd/readpath.py" not in files and "memoryd/read/assemble.py" in files:
        reasons.append("memoryd/readpath.py is gone and memoryd/read/assemble.py exists")
    return reasons


def dirty_files() -> list[str]:
    """Uncommitted changes to tracked files (the run must be reviewable as one diff, and revertible)."""
    return [
        line for line in git("status", "--porcelain", "--untracked-files=no").splitlines() if line.strip()
    ]


def print_table(moves: Sequence[Move]) -> None:
    """The mapping, one moved file per line (files that stay are counted, not listed)."""
    moved = [m for m in moves if m.old != m.new]
    width = max((len(m.old) for m in moved), default=10)
    for move in moved:
        print(f"  {move.old:<{width}}  →  {move.new}   ({move.how})")
    print(f"{len(moved)} files move, {len(moves) - len(moved)} stay where they are")


def move_files(moves: Sequence[Move]) -> None:
    """`git mv` per file (parents created), then drops the folders the moves emptied."""
    for move in moves:
        if move.old == move.new:
            continue
        (REPO / move.new).parent.mkdir(parents=True, exist_ok=True)
        git("mv", move.old, move.new)
    for folder in sorted({str(Path(m.old).parent) for m in moves if m.old != m.new}, key=len, reverse=True):
        remove_if_empty(REPO / folder)


def remove_if_empty(folder: Path) -> None:
    """Removes `folder` when nothing but bytecode caches is left in it."""
    if not folder.is_dir():
        return
    left = [p for p in folder.iterdir() if p.name != "__pycache__"]
    if left:
        return
    cache = folder / "__pycache__"
    if cache.is_dir():
        for pyc in cache.iterdir():
            pyc.unlink()
        cache.rmdir()
    folder.rmdir()


def write_new_packages() -> list[str]:
    """An `__init__.py` with a docstring for each package the move created."""
    written = []
    for folder, doc in NEW_PACKAGES.items():
        init = REPO / folder / "__init__.py"
        if (REPO / folder).is_dir() and not init.exists():
            init.write_text(f'"""{doc}"""\n', encoding="utf-8")
            git("add", str(init.relative_to(REPO)))
            written.append(str(init.relative_to(REPO)))
    for path in sorted(REPO.glob("memoryd/**/")):
        holds_modules = path.is_dir() and path.name != "__pycache__" and any(path.glob("*.py"))
        if holds_modules and not (path / "__init__.py").exists():
            raise SystemExit(f"relayout: {path.relative_to(REPO)} holds modules but no __init__.py")
    return written


def rewrite_tree(rewriter: Rewriter, debt: Sequence[str]) -> list[str]:
    """Rewrites every tracked text file that may mention a moved module; returns the changed paths."""
    needles = (
        "memoryd",
        "inferd",
        "DESIGN",
        "STYLE.md",
        "reference/",
        "osaurus-internals",
        *rewriter.bare_files,
    )
    changed = []
    for path in tracked_files():
        if path in SKIP_REWRITE or path.startswith(SKIP_PREFIXES):
            continue
        full = REPO / path
        text = original = is_text(full)
        if text is None or not any(needle in text for needle in needles):
            continue
        if path == "pyproject.toml":
            text = edit_pyproject(text)
        if path.endswith((".py", ".pyi")):
            try:
                new = rewriter.python(text)
            except SyntaxError:
                print(f"relayout: warning: {path} does not parse; rewritten as plain text")
                new = rewriter.text(text)
        else:
            new = rewriter.text(text)
        for pattern, replacement in CITATIONS:
            new = pattern.sub(replacement, new)
        if path == "pyproject.toml":
            # after the rewrite: the contracts are written in the new names already
            new = add_contracts(new, debt)
        if new != original:
            full.write_text(new, encoding="utf-8")
            changed.append(path)
    return changed


def edit_pyproject(text: str) -> str:
    """The inferd.schemas exception goes: the digest schema is memoryd's own module now."""
    for old, new in PYPROJECT_EDITS:
        if old in text:
            text = text.replace(old, new)
        else:
            print(f"relayout: warning: pyproject.toml no longer contains {old.strip()!r}; left as is")
    return text


def add_contracts(text: str, debt: Sequence[str]) -> str:
    """The layering contracts, appended after the existing ones."""
    lines = "\n".join(f'    "{line}",' for line in debt)
    contracts = CONTRACTS.replace("__STORAGE_DEBT__", lines)
    # memoryd.text exists once the one-text-module work is merged; a contract naming a missing module fails
    text_module = '    "memoryd.text",\n' if (REPO / "memoryd" / "text.py").exists() else ""
    contracts = contracts.replace("__TEXT_MODULE__", text_module)
    return text.rstrip("\n") + "\n" + contracts


def storage_debt() -> list[str]:
    """Direct imports of the database's modules outside memoryd.storage in the moved tree, as import-linter
    spells them ("importer -> imported"; external packages by their top-level name)."""
    found: set[str] = set()
    for path in sorted((REPO / "memoryd").rglob("*.py")):
        rel = str(path.relative_to(REPO))
        importer = module_name(rel)
        if importer is None or importer == "memoryd.storage" or importer.startswith("memoryd.storage."):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                targets = [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
            for target in targets:
                for protected in DATABASE_MODULES:
                    if target == protected or (target.startswith(protected + ".") and "." not in protected):
                        found.add(f"{importer} -> {protected}")
    return sorted(found)


def tidy(paths: Sequence[str]) -> None:
    """Import order and formatting of the touched Python files, with the venv's ruff when there is one."""
    ruff = REPO / ".venv" / "bin" / "ruff"
    python = [p for p in paths if p.endswith(".py") and (REPO / p).exists()]
    if not python:
        return
    if not ruff.exists():
        print(
            "relayout: warning: .venv/bin/ruff not found; run `ruff check --select I --fix` and `ruff format`"
        )
        return
    subprocess.run([str(ruff), "check", "--select", "I", "--fix", "--quiet", *python], cwd=REPO, check=False)
    subprocess.run([str(ruff), "format", "--quiet", *python], cwd=REPO, check=True)


def main(argv: Sequence[str] | None = None) -> int:
    """Plans, checks, then (unless --dry-run) moves and rewrites."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument(
        "--dry-run", action="store_true", help="print the mapping and the checks; change nothing"
    )
    args = parser.parse_args(argv)

    files = tracked_files()
    done = already_done(files)
    if done:
        print(f"relayout: refusing: the re-layout already ran ({'; '.join(done)})", file=sys.stderr)
        return EXIT_REFUSED
    untracked = [
        p
        for p in git("ls-files", "--others", "--exclude-standard", "memoryd").splitlines()
        if p.endswith(".py")
    ]
    if untracked:
        print("relayout: untracked modules under memoryd/ (add or remove them first):", file=sys.stderr)
        for path in untracked:
            print(f"  {path}", file=sys.stderr)
        return EXIT_UNMAPPED
    try:
        moves = plan(files)
    except UnmappedError as error:
        print(
            "relayout: no rule maps these files; add them to RULES in scripts/relayout.py:", file=sys.stderr
        )
        for path in error.paths:
            print(f"  {path}", file=sys.stderr)
        return EXIT_UNMAPPED
    for old in RULES:
        if not old.endswith("/") and old not in files and old not in OPTIONAL:
            print(
                f"relayout: note: {old} is not in the tree (removed or renamed by a merge); its rule is unused"
            )
    print_table(moves)
    if args.dry_run:
        return 0
    dirty = dirty_files()
    if dirty:
        print(
            f"relayout: refusing: {len(dirty)} uncommitted change(s) to tracked files; commit or stash them:",
            file=sys.stderr,
        )
        for line in dirty:
            print(f"  {line}", file=sys.stderr)
        return EXIT_REFUSED

    names = renames(moves)
    rewriter = Rewriter(names, bare_file_names(moves, files), logger_names(files))
    move_files(moves)
    created = write_new_packages()
    debt = storage_debt()
    changed = rewrite_tree(rewriter, debt)
    tidy(sorted(set(changed) | set(created)))
    print(
        f"relayout: {sum(m.old != m.new for m in moves)} files moved, {len(created)} packages created, "
        f"{len(changed)} files rewritten; review with `git diff --stat -M`, then reinstall and run make lint"
    )
    new_debt = [line for line in debt if line not in STORAGE_DEBT]
    if new_debt:
        print(
            "relayout: imports of the database outside memoryd.storage that are new since this script was written"
        )
        print(
            "          (listed in the contract's ignore_imports so lint stays green; they are issue 19's debt):"
        )
        for line in new_debt:
            print(f"  {line}")
    return EXIT_OK if check_contracts() else EXIT_CONTRACTS


def check_contracts() -> bool:
    """Runs lint-imports on the moved tree when the venv has it; True when every contract is kept."""
    lint_imports = REPO / ".venv" / "bin" / "lint-imports"
    if not lint_imports.exists():
        print("relayout: warning: .venv/bin/lint-imports not found; run it before committing")
        return True
    result = subprocess.run([str(lint_imports)], cwd=REPO, capture_output=True, text=True, check=False)
    if result.returncode == 0:
        print("relayout: lint-imports: every contract kept")
        return True
    print(result.stdout[result.stdout.find("Broken contracts") :] or result.stdout, file=sys.stderr)
    print(
        "relayout: the tree is moved and rewritten but import contracts are broken (above): fix them, or undo with"
        " `git reset --hard && git clean -fd memoryd`",
        file=sys.stderr,
    )
    return False


if __name__ == "__main__":
    sys.exit(main())

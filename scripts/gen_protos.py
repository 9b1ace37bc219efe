"""Generate the committed Python code from protos/osaurus/**/*.proto, or check it has not drifted.

Usage:
    python scripts/gen_protos.py              # regenerate protos/gen in place
    python scripts/gen_protos.py --out DIR    # generate into another directory
    python scripts/gen_protos.py --check      # regenerate into a temp dir and diff against protos/gen

Output is deterministic: the same .proto files and grpcio-tools version always give byte-identical files.
"""

from __future__ import annotations

import argparse
import difflib
import subprocess
import sys
import tempfile
from importlib import resources
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROTO_ROOT = ROOT / "protos"
DEFAULT_OUT = PROTO_ROOT / "gen"
# Only these names are ours to write or delete under the output directory.
GENERATED_SUFFIXES = ("_pb2.py", "_pb2_grpc.py", "_pb2.pyi")
# A FileDescriptorSet WITH comments (source info): servicekit.reflection serves it so `grpcurl describe` shows
# the API docs; grpcio's own reflection would drop them.
DESCRIPTOR_SET = "descriptor_set.binpb"


def proto_files() -> list[Path]:
    """Every .proto of ours, relative to protos/, in a stable order."""
    return sorted(p.relative_to(PROTO_ROOT) for p in (PROTO_ROOT / "osaurus").rglob("*.proto"))


def well_known_include_dir() -> Path:
    """grpc_tools ships google/protobuf/*.proto; protoc needs them on its include path."""
    return Path(str(resources.files("grpc_tools") / "_proto"))


def generate(out_dir: Path) -> None:
    """Run protoc over every proto into out_dir and add an __init__.py to each generated package."""
    files = proto_files()
    if not files:
        sys.exit(f"gen_protos: no .proto files under {PROTO_ROOT / 'osaurus'}")
    (out_dir / "osaurus").mkdir(parents=True, exist_ok=True)
    cmd = [
        sys.executable,
        "-m",
        "grpc_tools.protoc",
        f"-I{PROTO_ROOT}",
        f"-I{well_known_include_dir()}",
        f"--python_out={out_dir}",
        f"--grpc_python_out={out_dir}",
        f"--pyi_out={out_dir}",
        "--include_imports",
        "--include_source_info",
        f"--descriptor_set_out={out_dir / 'osaurus' / DESCRIPTOR_SET}",
        *(str(PROTO_ROOT / f) for f in files),
    ]
    result = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        sys.exit(f"gen_protos: protoc failed (exit {result.returncode}):\n{result.stderr}")
    for proto in files:
        package_dir = out_dir / proto.parent
        while package_dir != out_dir and out_dir in package_dir.parents:
            (package_dir / "__init__.py").touch()
            package_dir = package_dir.parent


def generated_files(root: Path) -> dict[str, bytes]:
    """Map relative path -> content for every generated file (and package __init__) under root/osaurus."""
    base = root / "osaurus"
    if not base.is_dir():
        return {}
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(base.rglob("*"))
        if p.is_file() and (p.name in ("__init__.py", DESCRIPTOR_SET) or p.name.endswith(GENERATED_SUFFIXES))
    }


def sync(fresh_root: Path, out_dir: Path) -> list[str]:
    """Make out_dir's generated files equal fresh_root's; only touch files that change. Returns changes."""
    fresh, current = generated_files(fresh_root), generated_files(out_dir)
    changes = []
    for rel in sorted(current.keys() - fresh.keys()):
        (out_dir / rel).unlink()
        changes.append(f"removed {rel}")
    for rel, content in fresh.items():
        if current.get(rel) != content:
            target = out_dir / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(content)
            changes.append(f"{'updated' if rel in current else 'created'} {rel}")
    return changes


def check(out_dir: Path) -> int:
    """Regenerate into a temp dir and compare with out_dir; print a diff summary and return 1 on drift."""
    with tempfile.TemporaryDirectory(prefix="osaurus-protos-") as tmp:
        generate(Path(tmp))
        fresh, current = generated_files(Path(tmp)), generated_files(out_dir)
    problems = []
    for rel in sorted(fresh.keys() | current.keys()):
        if rel not in current:
            problems.append(f"missing from {out_dir}: {rel}")
        elif rel not in fresh:
            problems.append(f"stale (no .proto generates it): {rel}")
        elif fresh[rel] != current[rel]:
            problems.append(f"differs: {rel}")
            diff = difflib.unified_diff(
                current[rel].decode(errors="replace").splitlines(),
                fresh[rel].decode(errors="replace").splitlines(),
                fromfile=f"committed/{rel}",
                tofile=f"regenerated/{rel}",
                lineterm="",
                n=1,
            )
            problems.extend(f"    {line[:200]}" for line in list(diff)[:20])
    if problems:
        print("Generated protobuf code is out of date with protos/osaurus/**/*.proto:", file=sys.stderr)
        print("\n".join(problems), file=sys.stderr)
        print("Fix: run `make proto` and commit protos/gen.", file=sys.stderr)
        return 1
    print(f"protos/gen is up to date ({len(fresh)} files).")
    return 0


def main(argv: list[str] | None = None) -> int:
    """Parse arguments and regenerate or check."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output directory (default protos/gen)")
    parser.add_argument("--check", action="store_true", help="fail if the output directory has drifted")
    args = parser.parse_args(argv)
    out_dir: Path = args.out.resolve()
    if args.check:
        return check(out_dir)
    with tempfile.TemporaryDirectory(prefix="osaurus-protos-") as tmp:
        generate(Path(tmp))
        changes = sync(Path(tmp), out_dir)
    print("\n".join(changes) if changes else f"{out_dir} already up to date.")
    return 0


if __name__ == "__main__":
    sys.exit(main())

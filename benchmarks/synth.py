"""Write a synthetic rule library of N rules: copies of the real records under new ids.

Copy k of rule Rnn becomes R<k*17+nn>, with its ``related`` ids shifted the same way, so
every copy is as large and as cross-linked as the real records and the library validates.
"""

from __future__ import annotations

import argparse
import re
import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RULES = ROOT / "rules"


def write_library(target: Path, count: int) -> Path:
    """Write ``count`` rules (plus library.yaml) into ``target``; return ``target``."""
    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True)
    shutil.copy(RULES / "library.yaml", target / "library.yaml")
    originals = sorted(RULES.glob("R*.yaml"), key=lambda p: int(p.stem[1:]))
    per_copy = len(originals)
    texts = [path.read_text(encoding="utf-8") for path in originals]
    for index in range(count):
        copy, position = divmod(index, per_copy)
        offset = copy * per_copy

        def shift(match: re.Match[str], offset: int = offset) -> str:
            number = int(match.group(1)) + offset
            # The last copy may be partial: point past-the-end links at the first copy.
            return f"R{number if number <= count else int(match.group(1)):02d}"

        text = texts[position]
        # Shift the id, the related ids and the markers; nothing else in a record looks like
        # "R<digits>" at the start of a flow-list item, after "id: " or after "# ".
        text = re.sub(r"(?m)^id: R(\d+)$", lambda m: "id: " + shift(m), text)
        text = re.sub(
            r"(?m)^related: \[(.*)\]$",
            lambda m: (
                "related: ["
                + ", ".join(re.sub(r"R(\d+)", shift, item) for item in m.group(1).split(", "))
                + "]"
            ),
            text,
        )
        # Example markers name their own rule ("# R03: ..."): they move with the id.
        text = re.sub(r"# R(\d+):", lambda m: "# " + shift(m) + ":", text)
        new_id = f"R{position + 1 + offset:02d}"
        (target / f"{new_id}.yaml").write_text(text, encoding="utf-8")
    return target


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("count", type=int)
    parser.add_argument("target", type=Path)
    args = parser.parse_args()
    write_library(args.target, args.count)
    print(f"wrote {args.count} rules to {args.target}")


if __name__ == "__main__":
    main()

"""Word families of stems: a noun and its verb ("livraison" / "livrer") are one topic (supersession's slot test)."""

from __future__ import annotations


def same_family(a: str, b: str) -> bool:
    """Whether two stems are one word family, a noun and its verb in any of the five languages ("livr" of "livrer"
    and "livraison", "deliv" / "deliveri", "entreg" / "entregar", "liefer" / "liefern", "inspeçã" / "inspecionar"):
    one is the start of the other (four letters at least), or they share five letters and differ in at most two
    of the shorter's."""
    if a == b:
        return True
    short, long_ = sorted((a, b), key=len)
    common = 0
    for x, y in zip(short, long_, strict=False):
        if x != y:
            break
        common += 1
    return common >= 4 and (common == len(short) or (common >= 5 and common >= len(short) - 2))

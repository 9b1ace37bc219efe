"""Names that exist in this agent's memory and not in the world's (gate-v7): a request about one is about memory.

"When did Caroline go to the support group?", "What do sunflowers represent according to Caroline?": LoCoMo's
questions are in the third person, about the people of the conversation. Person words do not say that a request
is about memory, and the request frames (gate_frames.ask_world: "what is / what do … mean / why is …") read "What do
Jon and Gina both have in common?" as a question about the world. What says it is the name: a person or thing that
exists only in this agent's memory. One general rule, from what the evidence pass already measured:

A name the request gives (a capitalised word past a sentence's first, not a month or weekday: gate_cues.names) is
**memory's own** when memory holds it (a searched section's rows or the identity) and either

- it is **rare in general language**: below OWN_ZIPF in every one of our five languages' wordfreq lists (about once
  per million words: "Ledgerly", "Mochi", "Jolene"; not "Lisbon", "Paris", "Berlin", "Python") and held by at least
  RARE_ROWS rows of one section or by the identity (gate-v8: an acronym or a small place one row mentions is not
  what memory is about), or
- memory is **about it**: at least PROMINENT_SHARE of one searched section's rows hold it, and at least
  PROMINENT_ROWS of them (the people a conversation is between and whom most of it mentions, "Caroline" in
  conv-26; a city named in two of forty rows is not).

A request naming memory's own is about memory whoever asks and in whatever person: it is never `ask_world`. A
request naming a public thing memory also holds (a city, a language, a famous work) is not about memory by that
alone; the learned model weighs the rest of the evidence, as before.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

from memoryd.retrieval import gate_lexicon as lex

#: Zipf frequency below which a name is rare in general language (3.0 = once per million words).
OWN_ZIPF = 3.0
#: Rows of one section that must hold a rare name for the rarity route (or the identity holds it). gate-v7 took one:
#: acronyms and small places a profile mentions once ("what does BTO stand for", "the population of Kumasi") then
#: took ask_world away from 18 no-memory DEV queries; with two, own_name fires on 6 no-memory DEV queries instead of
#: 49 (and on 24 memory-needing ones instead of 68) and on the same 376 of LoCoMo's 383 DEV questions (gate-v8).
RARE_ROWS = 2
#: Share of one section's rows, and the fewest rows, that make memory "about" a name.
PROMINENT_SHARE = 0.2
PROMINENT_ROWS = 3


def own_names(
    names: Collection[str],
    zipf: Mapping[str, float],
    section_df: Mapping[str, tuple[int, Mapping[str, int]]],
    identity_terms: Collection[str],
) -> list[str]:
    """The names (folded tokens) that are memory's own. zipf: each name's general-language frequency, looked up on
    its written (accented) form (a name absent from it is looked up folded); section_df: each searched section's
    prefix → (its active rows, its term document frequencies); identity_terms: folded words of the identity."""
    out: list[str] = []
    for name in names:
        held = name in identity_terms or any(df.get(name, 0) > 0 for _, df in section_df.values())
        if not held:
            continue
        rows_holding = max((df.get(name, 0) for _, df in section_df.values()), default=0)
        rare = zipf.get(name, lex.general_zipf(name)) < OWN_ZIPF and (
            rows_holding >= RARE_ROWS or name in identity_terms
        )
        prominent = any(
            df.get(name, 0) >= PROMINENT_ROWS and df.get(name, 0) >= PROMINENT_SHARE * rows
            for rows, df in section_df.values()
        )
        if rare or prominent:
            out.append(name)
    return out


__all__ = ["OWN_ZIPF", "PROMINENT_ROWS", "PROMINENT_SHARE", "own_names"]

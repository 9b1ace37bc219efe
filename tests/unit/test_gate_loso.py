"""Leave-one-set-out evaluation (bench/gate_loso.py): folds by set, the held-out set never in its fold's fit."""

from __future__ import annotations

import pytest

from bench.gate_fit import Example
from bench.gate_loso import LOSO_THRESHOLDS, best_threshold, fold_rows, loso, set_of
from bench.train_gate import NONE_THRESHOLDS, Fold


def _example(n: int, set_name: str, expected: str, signal: float, variant: str = "full") -> Example:
    return Example(
        id=f"{set_name.removeprefix('gate_')}en1.q{n:02d}",
        split=f"{set_name}/{variant}",
        lang="en",
        expected=expected,
        acceptable=(),
        tags=(),
        features={"p_cov": signal, "q_terms": 0.5},
    )


def _data() -> Fold:
    items = []
    for set_name in ("gate_v2", "gate_v10", "gate_v11"):
        for n in range(12):
            needs = n % 2 == 0
            items.append(_example(n, set_name, "pinned" if needs else "none", 1.0 if needs else 0.0))
            items.append(_example(n, set_name, "none", 0.0, variant="no_episodes/sparse_e"))
    return Fold(
        items,
        [False] * len(items),
        [e.split.endswith("/full") for e in items],
        ["/sparse_" in e.split for e in items],
    )


def test_set_of_reads_the_split() -> None:
    assert set_of("gate_v12/full/novec") == "gate_v12"
    assert set_of("gate_v3/sparse_p+t") == "gate_v3"


def test_a_fold_never_trains_on_its_held_out_set_and_scores_its_full_profiles_only() -> None:
    data = _data()
    train, test = fold_rows(data, "gate_v10")
    assert all(set_of(data.items[i].split) != "gate_v10" for i in train)
    assert {set_of(data.items[i].split) for i in train} == {"gate_v2", "gate_v11"}
    assert test and all(data.items[i].split == "gate_v10/full" for i in test)
    # The other sets' sparse agents are training data; the held-out set's are not scored.
    assert any(data.is_sparse[i] for i in train)


def test_loso_scores_each_held_out_set_at_every_bar() -> None:
    data = _data()
    result = loso(
        data, ("p_cov", "q_terms"), {"features": "toy"}, l2=0.01, augment=0.1, sparse_weight=0.01,
        held_out_sets=("gate_v10", "gate_v11"), iterations=200,
    )  # fmt: skip
    assert [f.held_out for f in result.folds] == ["gate_v10", "gate_v11"]
    assert set(result.folds[0].by_threshold) == set(LOSO_THRESHOLDS) >= set(NONE_THRESHOLDS)
    assert result.folds[0].by_threshold[0.5].n == 12
    mean = result.mean()
    assert mean["lenient"] == pytest.approx(1.0)
    assert mean["false"] == 0.0 and mean["missed"] == 0.0


def test_a_set_missing_from_the_data_is_an_error() -> None:
    with pytest.raises(ValueError, match="gate_v13"):
        loso(_data(), ("p_cov",), {}, l2=0.01, augment=0.1, sparse_weight=0.01, held_out_sets=("gate_v13",))


def test_the_bar_is_chosen_on_the_mean_over_folds() -> None:
    data = _data()
    result = loso(
        data, ("p_cov", "q_terms"), {}, l2=0.01, augment=0.1, sparse_weight=0.01,
        held_out_sets=("gate_v10", "gate_v11"), iterations=200,
    )  # fmt: skip
    # Every bar separates this toy data perfectly: the lowest bar wins the tie.
    assert best_threshold(result.folds) == min(LOSO_THRESHOLDS)

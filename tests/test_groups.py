"""Phrasing groups as a memo key: equal to the plain tuple, hashed once, copied afresh."""

from __future__ import annotations

import pickle

from evals.suite.folder import SuiteSettings
from evals.suite.groups import Groups


def test_groups_equal_and_hash_as_the_plain_tuple_so_either_finds_a_memo() -> None:
    plain = (("credit card", "payment card"), ("cancel", "end"))
    groups = Groups(plain)
    assert groups == plain and hash(groups) == hash(plain)
    assert {plain: 1}[groups] == 1


def test_a_pickled_copy_is_groups_again_with_its_hash_computed_in_its_own_process() -> None:
    groups = Groups([["a", "b"]])
    hash(groups)
    copy = pickle.loads(pickle.dumps(groups))
    assert isinstance(copy, Groups) and copy == groups and "_hash" not in vars(copy)


def test_a_suites_synonyms_are_groups_however_they_are_given() -> None:
    settings = SuiteSettings(synonyms=(("a", "b"),))
    assert isinstance(settings.synonyms, Groups) and settings.synonyms == (("a", "b"),)

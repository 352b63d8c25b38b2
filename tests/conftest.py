"""Shared fixtures: the loopback OpenAI-compatible server (see tests/openai_server.py)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

# The tests import this checkout's package (the editable install can resolve `evals` as a
# namespace package without its __init__), and the helpers next to this file.
sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parent.parent))

from openai_server import OpenAIServer  # noqa: E402


@pytest.fixture
def openai_server() -> Iterator[OpenAIServer]:
    """A fresh server on 127.0.0.1 with no latency; stopped after the test."""
    with OpenAIServer() as srv:
        yield srv


# The slow tests: they start the real `invoke` executable (an interpreter and the package's
# imports each time), git, a browser or a sealed pile, or repeat a statistical simulation.
# `pytest -m "not slow"` leaves them out: the quick loop while editing (README, "Two
# commands"). Whole files where most tests do that, and single tests elsewhere.
SLOW_FILES = frozenset(
    """test_baseline test_batch_resume test_calibrate test_calibrate_checks test_casefiles
    test_compare test_conversations test_diff test_example_suite test_export test_hooks
    test_history test_importers test_init test_judge_run test_merge test_multi_browser
    test_multi_compare test_multi_simulate test_mutate test_outputs
    test_prompt_use test_rag_tutorial test_readme_figures test_replay test_report
    test_report_browser test_resume test_review test_seal test_seal_walkthrough
    test_sealed_run test_simulate test_stamps test_summary test_validate test_workflow
    test_writer""".split()
)
SLOW_TESTS = frozenset(
    """test_a_200_case_suite_ends_with_every_case_scored_or_an_error_row
    test_the_test_counts_in_the_docs_are_what_bench_test_suite_counts
    test_the_process_exits_promptly_after_a_run_whose_sync_target_hung
    test_ctrl_c_while_the_tasks_load_exits_130
    test_a_lone_surrogate_in_an_answer_is_shown_as_a_replacement_character
    test_fifteen_percent_faults_every_case_scored_or_an_error_with_its_reason
    test_invoke_run_takes_model_twice_and_epochs_from_the_command_line
    test_binomial_p_matches_the_sum_of_binomial_coefficients
    test_a_skip_reason_is_printed_under_q
    test_offline_run_writes_a_schema_valid_stamped_run_file
    test_outside_the_project_invoke_says_where_to_run_from_and_exits_2
    test_model_without_a_value_runs_nothing
    test_the_task_list_here_is_every_task
    test_an_unknown_flag_is_named_with_exit_2
    test_the_invoke_task_takes_repeated_prompts_and_runs_the_offline_model""".split()
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark the slow tests (see SLOW_FILES and SLOW_TESTS)."""
    for item in items:
        name = getattr(item, "originalname", item.name)
        if item.path.stem in SLOW_FILES or name in SLOW_TESTS:
            item.add_marker(pytest.mark.slow)

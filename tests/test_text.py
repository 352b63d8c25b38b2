def test_danish_kr_and_kl_end_no_sentence_before_a_lower_case_word_or_a_number() -> None:
    from evals.checks.text import sentences

    said = "Gebyret er 100 kr. pr. resterende måned [doc:a], dog højst 600 kr. Husk det."
    assert [s.strip() for _, s in sentences(said)] == [
        "Gebyret er 100 kr. pr. resterende måned [doc:a], dog højst 600 kr.",
        "Husk det.",
    ]
    assert len(sentences("Kom kl. 8 eller kl. 12. Tak.")) == 2


def test_a_full_stop_before_a_comma_ends_no_sentence() -> None:
    from evals.checks.text import sentences

    # "900 kr. [doc:x], men ...": the citation blanked leaves the full stop before a comma.
    text = "Det ville give 900 kr.                 , men gebyret er højst 600 kr. Husk varslet."
    assert [s.strip() for _, s in sentences(text)] == [
        "Det ville give 900 kr.                 , men gebyret er højst 600 kr.",
        "Husk varslet.",
    ]
    assert len(sentences("See the price list, etc., for more. Then pay.")) == 2

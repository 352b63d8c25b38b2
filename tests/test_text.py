def test_danish_kr_and_kl_end_no_sentence_before_a_lower_case_word_or_a_number() -> None:
    from evals.checks.text import sentences

    said = "Gebyret er 100 kr. pr. resterende måned [doc:a], dog højst 600 kr. Husk det."
    assert [s.strip() for _, s in sentences(said)] == [
        "Gebyret er 100 kr. pr. resterende måned [doc:a], dog højst 600 kr.",
        "Husk det.",
    ]
    assert len(sentences("Kom kl. 8 eller kl. 12. Tak.")) == 2

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


def test_a_days_full_stop_before_a_month_ends_no_sentence() -> None:
    from evals.checks.text import sentences

    text = "Ab dem 10. Mai 2025, also bis zum 10. Mai 2027. Danach gilt es."
    assert [s.strip() for _, s in sentences(text)] == [
        "Ab dem 10. Mai 2025, also bis zum 10. Mai 2027.",
        "Danach gilt es.",
    ]
    assert len(sentences("Opsiger du den 14. november, stopper det den 31. december. Ja.")) == 2
    # A number before a full stop and any other word still ends its sentence.
    assert len(sentences("Es kostet 10. Danach nichts.")) == 2
    assert len(sentences("See step 2. May I help?")) == 2


def test_normal_form_unifies_typographic_characters_and_symbol_gaps() -> None:
    from evals.checks.text import normalise

    assert normalise("“Pro” costs 45 € – ‘yes’\u00ad") == "\"pro\" costs 45€ - 'yes'"
    assert normalise("15 %\u00a0off,  € 45") == "15% off, €45"
    assert normalise("Plain  text\nhere") == "plain text here"


def test_many_phrases_are_found_as_each_one_is_found() -> None:
    from evals.checks.text import contains_any_phrase, contains_phrase

    phrases = ("hand this over", "collega", "€ 5", "(see below)")
    for text in ("I’ll HAND this over now.", "Un collega la aiuterà", "costs € 5!", "colleague"):
        want = any(contains_phrase(text, p) for p in phrases)
        assert contains_any_phrase(text, phrases) is want, text
    assert not contains_any_phrase("handover", ("hand",))

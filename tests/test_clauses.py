def test_a_claim_of_one_inflected_word_and_glue_needs_that_form() -> None:
    from evals.checks.clauses import claims

    # "le rimborseremo" promises a refund; the noun "rimborso" is not that claim.
    assert claims("Le rimborseremo tutto entro una settimana.", "le rimborseremo", lang="it")
    assert not claims(
        "Non sono in grado di confermarLe un rimborso più alto.", "le rimborseremo", lang="it"
    )
    assert claims("Wir erstatten Ihnen den Betrag.", "wir erstatten", lang="de")
    assert not claims("Eine Erstattung prüft der Kundenservice.", "wir erstatten", lang="de")

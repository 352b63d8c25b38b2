import pytest


def test_a_claim_of_one_inflected_word_and_glue_needs_that_form() -> None:
    from evals.checks.clauses import claims

    # "le rimborseremo" promises a refund; the noun "rimborso" is not that claim.
    assert claims("Le rimborseremo tutto entro una settimana.", "le rimborseremo", lang="it")
    assert not claims(
        "Non sono in grado di confermarLe un rimborso più alto.", "le rimborseremo", lang="it"
    )
    assert claims("Wir erstatten Ihnen den Betrag.", "wir erstatten", lang="de")
    assert not claims("Eine Erstattung prüft der Kundenservice.", "wir erstatten", lang="de")


def test_each_clause_stands_at_its_own_offset_after_a_break_word() -> None:
    from evals.checks.clauses import clauses

    text = "It costs 5 €, but with the cap it is 6 €; so pay 6 € now."
    pieces = clauses(text)
    assert [p.strip() for _, p in pieces] == [
        "It costs 5 €,",
        "with the cap it is 6 €",
        "so pay 6 € now.",
    ]
    for offset, piece in pieces:
        assert text[offset : offset + len(piece)] == piece


def test_what_would_be_set_aside_by_a_but_is_no_forbidden_claim() -> None:
    from evals.checks.clauses import claims, stated_text

    right = (
        "Gebyret er 100 kr. pr. resterende måned [doc:aftale#binding], så 9 måneder ville "
        "give 900 kr. [doc:aftale#binding], men gebyret er højst 600 kr. [doc:aftale#binding]."
    )
    assert not claims(stated_text(right, "da", aside=True), "900 kr", lang="da")
    assert not claims(
        stated_text(
            "Nine months would come to 900 kr, but the fee is capped at 600 kr.", "en", aside=True
        ),
        "900 kr",
        lang="en",
    )
    # Said as what applies, the figure is claimed: no "but" sets it aside.
    for wrong, lang in (
        ("Med 9 måneder tilbage bliver det 900 kr. [doc:aftale#binding].", "da"),
        ("It would be 900 kr in your case [doc:aftale#binding].", "en"),
        ("It costs 900 kr, but you can pay it in two parts.", "en"),
    ):
        assert claims(stated_text(wrong, lang, aside=True), "900 kr", lang=lang), wrong
    # A fact still reads the words of what would be ("a fee would apply, but it lapses").
    normally = (
        "Normaal zou een opzegvergoeding van 100 € gelden, maar bij een verhuizing vervalt die."
    )
    assert "opzegvergoeding" in stated_text(normally, "nl")


@pytest.mark.parametrize(
    ("lang", "text"),
    [
        ("nl", "10 € was het tarief tot 1 juli 2026."),
        ("en", "It was 10 € until 1 July 2026."),
        ("de", "Der Preis war bis zum 30. Juni 12 €."),
        ("fr", "Le prix était de 10 € jusqu’au 1 juillet."),
        ("es", "El precio era de 10 € hasta el 1 de julio."),
        ("it", "Il prezzo era 5 € fino al 30 giugno."),
        ("pt", "O preço era 5 € até 30 de junho."),
        ("da", "Prisen var 29 kr. indtil den 1. juli."),
        ("it", "I 5 € di consegna valevano solo fino al 31 marzo 2025."),
        ("pt", "A taxa de 15 € era uma condição antiga, válida só até 2025."),
        ("pt", "Essa regra antiga de 15 € já foi substituída."),
        ("en", "Until 31 January 2026 the deposit was 100 €."),
        ("nl", "Tot 31 januari 2026 gold 100 € borg per apparaat."),
        ("de", "Bis zum 31. Januar 2026 betrug die Kaution 100 €."),
        ("it", "Fino al 31 gennaio 2026 la cauzione era di 100 €."),
        ("es", "Hasta el 31 de enero de 2026 la fianza era de 100 €."),
        ("fr", "Jusqu’au 31 janvier 2026 la caution était de 100 €."),
        ("da", "Indtil den 31. januar 2026 var depositummet 100 kr."),
        ("nl", "Wat je zus betaalde, was de oude regel."),
        ("en", "The 300 € you read about was the old rule, which applied until 30 June 2025."),
        ("en", "The 300 € was the old limit."),
    ],
)
def test_what_applied_until_a_date_said_in_the_past_is_named_to_retire_it(
    lang: str, text: str
) -> None:
    from evals.checks.clauses import corrects

    assert corrects(text, lang)


@pytest.mark.parametrize(
    ("lang", "text"),
    [
        ("nl", "10 € is het tarief tot 1 juli."),
        ("en", "The price is 10 € until 1 July."),
        ("nl", "Het was tot 10 GB per maand."),
        ("da", "Det var op til 10 GB."),
        ("en", "Until 31 January the deposit is 100 €."),
        ("nl", "Tot 31 januari is de borg 100 €."),
        ("en", "The rule applies until 30 June 2027."),
    ],
)
def test_a_present_or_a_limit_until_is_no_retirement(lang: str, text: str) -> None:
    from evals.checks.clauses import corrects

    assert not corrects(text, lang)


@pytest.mark.parametrize(
    ("lang", "text", "phrase"),
    [
        (
            "da",
            "Jeg kan ikke finde oplysninger om en særlig varmepumpepris.",
            "særlig varmepumpepris",
        ),
        ("en", "I can't find any information about a heat pump discount.", "heat pump discount"),
        (
            "de",
            "Ich finde in den Unterlagen keine Informationen zu einem Wärmepumpentarif.",
            "Wärmepumpentarif",
        ),
        ("fr", "Je ne trouve aucune information sur un tarif spécial.", "tarif spécial"),
        ("es", "No encuentro información sobre una tarifa especial.", "tarifa especial"),
        ("it", "Non trovo informazioni su una tariffa speciale.", "tariffa speciale"),
        ("pt", "Não encontro informações sobre uma tarifa especial.", "tarifa especial"),
        ("nl", "Ik kan geen informatie over een speciaal tarief vinden.", "speciaal tarief"),
    ],
)
def test_what_the_answer_finds_no_information_about_is_not_claimed(
    lang: str, text: str, phrase: str
) -> None:
    from evals.checks.clauses import claims

    assert not claims(text, phrase, lang=lang)
    # Said as what applies, it is claimed.
    assert claims(
        f"Wir bieten einen {phrase}." if lang == "de" else f"{phrase}.", phrase, lang=lang
    )


@pytest.mark.parametrize(
    ("lang", "text", "phrase"),
    [
        ("da", "Jeg kan ikke selv undersøge, om computeren er fundet.", "computeren er fundet"),
        ("de", "Ich kann nicht prüfen, ob Ihr Laptop gefunden ist.", "Laptop gefunden ist"),
        ("es", "No puedo averiguar si su portátil ha aparecido.", "portátil ha aparecido"),
        ("nl", "Ik kan niet nagaan, of je laptop gevonden is.", "laptop gevonden is"),
        # The verb with its pronoun joined to it: "dirLe se", "confermarLe se".
        ("it", "Non sono in grado di dirLe se c'è un posto libero.", "c'è un posto libero"),
        (
            "it",
            "Non posso confermarLe se il portatile è stato trovato.",
            "portatile è stato trovato",
        ),
    ],
)
def test_what_the_answer_cannot_check_whether_after_a_comma_is_not_claimed(
    lang: str, text: str, phrase: str
) -> None:
    from evals.checks.clauses import claims

    assert not claims(text, phrase, lang=lang)
    assert claims(phrase[0].upper() + phrase[1:] + ".", phrase, lang=lang)


def test_what_would_be_before_a_so_that_states_what_is_instead_is_no_claim() -> None:
    from evals.checks.clauses import claims, stated_text

    for right, lang in (
        (
            "Med ni måneder tilbage ville det være 900 kr. [doc:a], så loftet gælder, og du "
            "betaler 600 kr. [doc:a].",
            "da",
        ),
        ("Nine months would come to 900 kr, so the cap applies and you pay 600 kr.", "en"),
        ("Nove mesi sarebbero 900 kr, quindi vale il tetto: paga 600 kr.", "it"),
    ):
        assert not claims(stated_text(right, lang, aside=True), "900 kr", lang=lang), right
    # A "so" that states nothing of its own sets nothing aside, and without a would-word
    # the figure before it is claimed.
    for wrong, lang in (
        ("Nine months would come to 900 kr, so plan for that.", "en"),
        ("Nine months come to 900 kr, so you pay 600 kr less later.", "en"),
    ):
        assert claims(stated_text(wrong, lang, aside=True), "900 kr", lang=lang), wrong


@pytest.mark.parametrize(
    ("lang", "text", "kept"),
    [
        (
            "pt",
            "Pergunta quanto custa cada porção e se a entrega está incluída. Custa 6,50 €.",
            "Custa 6,50 €.",
        ),
        ("en", "You ask whether delivery is included: it is not.", ": it is not."),
        ("it", "Mi chiedi se la consegna è gratuita. Costa 3,90 €.", "Costa 3,90 €."),
        (
            "de",
            "Sie fragen, ob die Lieferung inbegriffen ist. Sie kostet 3,90 €.",
            "Sie kostet 3,90 €.",
        ),
        ("nl", "U vraagt of de bezorging gratis is. Die kost 3,90 €.", "Die kost 3,90 €."),
    ],
)
def test_the_question_said_back_is_asked_not_claimed(lang: str, text: str, kept: str) -> None:
    from evals.checks.clauses import stated_text

    assert stated_text(text, lang).strip() == kept


def test_a_supposition_of_the_customers_own_case_states_what_applies_to_them() -> None:
    from evals.checks.clauses import stated_text
    from evals.checks.values import parse_figures

    answer = (
        "El pase cuesta 8 € por día. Si tu hermano viene 3 días, serían 3 × 8 € = 24 € en total."
    )
    given = tuple(parse_figures("Mi hermano viene 3 días la semana que viene.", "es"))
    assert "24 €" in stated_text(answer, "es", given=given)
    # Another case than the customer's is only supposed: it states nothing.
    other = tuple(parse_figures("Mi hermano viene 2 días.", "es"))
    assert "24 €" not in stated_text(answer, "es", given=other)
    assert "24 €" not in stated_text(answer, "es")


def test_a_question_the_answer_asks_itself_and_answers_yes_states_what_it_asks() -> None:
    from evals.checks.clauses import stated_text

    text = "- ¿Se alarga la permanencia? Sí, lo mismo que dure la congelación."
    assert "Se alarga" in stated_text(text, "es")
    # Answered no, or not answered, it stays a question: no claim.
    assert "gratuita" not in stated_text("¿Es gratuita? No, cuesta 9 €.", "es")
    assert "free" not in stated_text("Is it free? It costs 9 €.", "en")


def test_out_of_date_and_the_years_price_retire_a_figure() -> None:
    from evals.checks.clauses import corrects

    assert corrects("That list is out of date: 399 € per month was the 2025 price.", "en")
    assert not corrects("That list is up to date: 429 € per month is the price.", "en")


@pytest.mark.parametrize(
    ("lang", "clause"),
    [
        ("en", "That was the old deposit"),
        ("en", "the previous premium"),
        ("nl", "De site gebruikt nog de oude premie van 2025"),
        ("it", "era il vecchio premio"),
        ("de", "das war die alte Prämie"),
        ("da", "det var den gamle præmie"),
        ("nl", "Nee, die flyer is verouderd"),
        ("nl", "169 € was de prijs in 2025"),
    ],
)
def test_an_old_premium_or_deposit_is_named_as_retired(lang: str, clause: str) -> None:
    from evals.checks.clauses import corrects

    assert corrects(clause, lang)
    assert not corrects("the premium is 9,50 €" if lang == "en" else "9,50 €", lang)

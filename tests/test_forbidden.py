def test_a_forbidden_figure_given_as_the_limit_its_passage_gives_is_restated() -> None:
    from evals.checks.forbidden import passage_limit
    from evals.checks.values import parse_figures

    passage = "L'assicurazione extra costa l'1,5 % del valore dichiarato, con un minimo di 3,00 €."
    said = "Costa l'1,5 % del valore, con un minimo di 3,00 €, quindi 12,00 € per 800 €."
    fig = next(f for f in parse_figures(said, "it") if f.text.startswith("3,00"))
    assert passage_limit(said, fig, [passage], "it")
    # A limit of another figure ("up to 10 kg") makes no limit of the price after it.
    parcels = "Prices: 6,80 € up to 2 kg, 9,50 € up to 10 kg."
    wrong = "Para um pacote até 10 kg são 9,50 €."
    fig = next(f for f in parse_figures(wrong, "pt") if f.kind == "money")
    assert not passage_limit(wrong, fig, [parcels], "pt")

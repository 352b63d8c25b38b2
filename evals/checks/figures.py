"""Figures in an answer: each needs a citation in its sentence, and the cited passage must
state it (claim support). The ticket's own figures need neither."""

from __future__ import annotations

from decimal import Decimal

from evals.checks.base import (
    CheckInput,
    CheckResult,
    check,
    passed,
    ratio,
    skipped,
    undecided,
)
from evals.checks.binding import bind
from evals.checks.dates import date_from_given
from evals.checks.derived import clock_span, computed, multiplier, priced_in, takes_a_rate
from evals.checks.figure_citations import (
    cited_as_stated,
    lead_citations,
    own_citations,
    sentence_citations,
    shares_a_citation,
    stated_by_earlier_citation,
    stated_elsewhere,
)
from evals.checks.given import (
    between,
    counts_of,
    figures,
    from_ticket,
    given_figures,
    given_numbers,
    sentence_start,
)
from evals.checks.language import detect
from evals.checks.lexicon import lexicon
from evals.checks.owners import names_in
from evals.checks.passage_figures import miscounted, passage_states, total_first
from evals.checks.periods import other_period
from evals.checks.supposed import (
    example_input,
    pointed_back,
    ratio_of_sourced,
    restated_label,
    shown_after,
    started_units,
    supposed_amount,
)
from evals.checks.text import phrase_pattern, quote
from evals.checks.values import Figure, parse_figures
from evals.checks.worked import bracketed_from, term_of_sum, worked_out
from evals.suite import patterns
from evals.suite.case import Case


@check()
def no_unsourced_number(inp: CheckInput) -> CheckResult:
    found = figures(inp.answer, inp.lang)
    if not found:
        return passed("no figures to source")
    cite = patterns.compile_pattern(inp.settings.citation_pattern)
    reported = inp.reply.cited
    if reported and cite.search(inp.answer, timeout=patterns.MATCH_TIMEOUT_S) is None:
        # A system that reports its citations beside the answer and marks none inline: its
        # figures are sourced by what it cites, and figures_supported checks each figure
        # against those passages.
        n = len(found)
        return ratio(
            n,
            n,
            f"{n} figures, no inline markers: sourced by the {len(reported)} reported citation(s)",
        )
    window = inp.settings.figure_window
    unsourced: list[Figure] = []
    in_head: list[Figure] = []
    given = given_figures(inp.case)
    texts = tuple(str(r.get("text") or "") for r in inp.case.retrieved)
    # Figures with a source so far (cited, the customer's, or worked out from such): the
    # inputs of a result the answer works out after them.
    sourced: list[Figure] = []
    cited: list[Figure] = []  # those of them sourced by a citation, not worked out
    # A percentage is taken only by an answer that names one or a word that takes one.
    rated = takes_a_rate(inp.answer, found, inp.lang)
    for fig in found:
        if (
            from_ticket(fig, inp.case)
            or date_from_given(fig, given)
            or between(fig, given, inp.answer)
        ):
            sourced.append(fig)
            continue
        if (
            sentence_citations(inp.answer, fig, cite, window)
            or _cited_before(fig, sourced)
            or lead_citations(inp.answer, fig, cite)
        ):
            sourced.append(fig)
            cited.append(fig)
            continue
        start = sentence_start(inp.answer, fig)
        if stated_by_earlier_citation(inp.answer, inp.case.retrieved, fig, start, cite):
            sourced.append(fig)
            continue
        # The minutes between a clock time the answer sourced and the customer's ("open
        # until 18:30 [doc:a]. You came at 18:50, so 20 minutes late").
        if clock_span(fig, [*given, *(f for f in sourced if f.end <= fig.start)]):
            sourced.append(fig)
            continue
        factors = counts_of(inp.answer, fig, inp.case)
        if worked_out(fig, start, inp.answer, sourced, given, factors, inp.lang):
            sourced.append(fig)
            continue
        # A term of the answer's own sum that it worked out in its head from what it
        # sourced before ("50 % [doc:a]: 23,60 € + 3,90 € = 27,50 €" after "47,20 €").
        if term_of_sum(inp.answer, fig) and computed(
            fig, [f for f in sourced if f.end <= fig.start], given, factors
        ):
            sourced.append(fig)
            continue
        # What the sentence concludes from a figure it sourced and the customer's own: "6
        # maanden [doc:a]; je zit op 4, dus er staan nog 2 maanden open".
        if _concluded(inp.answer, fig, start, sourced, inp.case, inp.lang):
            sourced.append(fig)
            continue
        if (
            example_input(inp.answer, fig, inp.lang, found)
            or supposed_amount(inp.answer, fig, inp.lang, found, _retrieved_figures(texts))
            or restated_label(inp.answer, fig, texts, inp.lang)
            or started_units(fig, given, texts)
            or ratio_of_sourced(inp.answer, fig, sourced, inp.lang)
            or _day_in_words(fig, inp)
        ):
            sourced.append(fig)
            continue
        if _article_unit(fig, inp):
            continue
        # Worked out in the head from what the answer sourced before it ("549 kr. [doc:a],
        # so ten come to 5,490 kr."): the arithmetic may hold, but the answer does not show
        # it; a person decides (never a pass: chance makes many sums of many figures).
        before = [f for f in sourced if f.end <= fig.start]
        if before and computed(fig, before, given, factors, percent=rated):
            in_head.append(fig)
            sourced.append(fig)
            continue
        unsourced.append(fig)
    n = len(found)
    # A figure the sentence goes on to work out ("2,00 €: 29,90 € − 27,90 € = 2,00 €").
    unsourced = [f for f in unsourced if not shown_after(inp.answer, f, sourced)]
    # A total given before the figures it comes from ("Spendi in totale 529,20 €. Il calcolo:
    # 49 € [doc:a] per 12 mesi fanno 588 €; lo sconto del 10 % [doc:b] vale 58,80 €"):
    # worked out from what the answer sources after it, for a person to weigh.
    late = [
        f
        for f in unsourced
        if computed(
            f,
            # the same value cited later is no working of it (given first, it has no source);
            # worked out later ("... that makes thirty euros"), it is
            [s for s in sourced if not (s.same(f) and s in cited)],
            given,
            counts_of(inp.answer, f, inp.case),
            percent=rated,
        )
    ]
    in_head += late
    unsourced = [f.text.strip() for f in unsourced if f not in late]
    if unsourced:
        return ratio(n - len(unsourced), n, f"no citation after {quote(unsourced)}")
    in_head = [f for f in in_head if not shown_after(inp.answer, f, sourced)]
    if in_head:
        return undecided(
            "worked out from the answer's sourced figures without showing how: "
            + quote([f.text.strip() for f in in_head])
        )
    return ratio(n, n, f"{n} figures, each sourced or from the question")


def _concluded(
    answer: str, fig: Figure, start: int, sourced: list[Figure], case: Case, lang: str | None
) -> bool:
    """Whether a word that draws a conclusion (each language file's `then`: "so", "dus",
    "quindi") follows a figure the sentence sourced, and the figure is that one plus or
    minus a number the customer gave; any other arithmetic in words stays unsourced."""
    before = [f for f in sourced if start <= f.start and f.end <= fig.start]
    if not before or not isinstance(fig.value, Decimal):
        return False
    last = before[-1]
    if (last.kind, last.unit) != (fig.kind, fig.unit) or not isinstance(last.value, Decimal):
        return False
    if phrase_pattern(lexicon(lang or "en").then).search(answer, last.end, fig.start) is None:
        return False
    theirs = {Decimal(n) for n in given_numbers(case) if n.isdigit()}
    return any(abs(last.value - fig.value) == n or last.value + n == fig.value for n in theirs)


def _retrieved_figures(texts: tuple[str, ...]) -> list[Figure]:
    """Every figure the case's retrieved passages state."""
    return [f for t in texts for f in parse_figures(t)]


def _day_in_words(fig: Figure, inp: CheckInput) -> bool:
    """A day of a month said in words ("from the first day of the following month") that a
    retrieved passage gives: the passage's rule restated, no number to cite."""
    if fig.kind != "day" or any(ch.isdigit() for ch in fig.text):
        return False
    return any(
        p.same(fig) for r in inp.case.retrieved for p in parse_figures(str(r.get("text") or ""))
    )


def _article_unit(fig: Figure, inp: CheckInput) -> bool:
    """Whether the figure is one unit written with the indefinite article ("in un giorno",
    "igual que un día laborable") that no passage states: the article, read as one, names
    the unit, not a term the answer takes from a passage (one a passage gives, "1 giorno",
    still needs its source)."""
    if fig.kind != "duration" or fig.value != 1:
        return False
    first = fig.text.split()[0].casefold() if fig.text.split() else ""
    if first not in lexicon(inp.lang or detect(inp.answer) or "en").articles:
        return False
    texts = (str(r.get("text") or "") for r in inp.case.retrieved)
    return not any(fig.same(p) for t in texts for p in parse_figures(t))


def _cited_before(fig: Figure, cited: list[Figure]) -> bool:
    """Whether the answer sourced the same value before: a figure restated ("the minimum is
    30 € [doc:a]. To lower it to 30 €, open ...", "about 675 € [doc:a] ... = 675 €") has its
    source where it was first given (cited, the customer's, or worked out from such). A citation only after it does not count: the prompt
    asks for the source right after a figure, and "421,20 € in total. ... = 421,20 € [doc:a]"
    gives the total first without one."""
    return any(c.start < fig.start and c.same(fig) for c in cited)


def _of_its_kind(texts: list[str], fig: Figure) -> bool:
    """Whether any of the passages gives a figure of the figure's kind and unit."""
    return any((p.kind, p.unit) == (fig.kind, fig.unit) for t in texts for p in parse_figures(t))


@check()
def figures_supported(inp: CheckInput) -> CheckResult:
    every = figures(inp.answer, inp.lang)
    given_figs = given_figures(inp.case)
    cite = patterns.compile_pattern(inp.settings.citation_pattern)
    passages = {r.get("ref"): str(r.get("text") or "") for r in inp.case.retrieved}
    window = inp.settings.figure_window
    theirs = [f for f in every if from_ticket(f, inp.case) or between(f, given_figs, inp.answer)]
    # The customer's figure needs no source, unless the answer gives it as a passage's and
    # names the wrong one.
    miscited = {
        f.start: where
        for f in theirs
        if (where := stated_elsewhere(inp.answer, f, cite, window, passages))
    }
    # Or cites it right after to a passage that states it: then it is that passage's
    # figure, held to the subject the passage gives it ("un débit de 35 € [doc:frais]
    # correspond aux frais de nettoyage" where the list's 35 € is the zone exit fee).
    as_passages = {
        f.start for f in theirs if cited_as_stated(inp.answer, f, cite, window, passages)
    }
    found = [f for f in every if f not in theirs or f.start in miscited or f.start in as_passages]
    if not found:
        return skipped("no figures beyond the ticket's own")
    reported = inp.reply.cited
    judged = unsupported = 0
    bad: list[str] = []
    # Figures the answer has already shown to be stated or computed are terms of its later
    # sums ("19,90 € ... 15,90 € ... 35,80 € in all"), as a figure of a passage cited
    # elsewhere is.
    shown: list[Figure] = []
    # Those its passages state as written, about their subject (not worked out).
    stated: list[Figure] = []
    asked = names_in("\n".join(inp.case.user_texts), inp.lang)
    # A percentage is taken only by an answer that names one or a word that takes one.
    rated = takes_a_rate(inp.answer, every, inp.lang)
    for fig in found:
        if multiplier(inp.answer, fig, inp.lang) or example_input(inp.answer, fig, inp.lang, every):
            continue  # "× 12 months" multiplies, "Beispiel: 1.350 km" supposes: no claim
        refs = own_citations(inp.answer, fig, cite, inp.settings.figure_window)
        wrong = miscounted(inp.answer, fig, inp.lang)
        if wrong:
            judged += 1
            unsupported += 1
            bad.append(f"{fig.text.strip()} (worked out wrong: {wrong})")
            continue
        if fig.start in miscited:
            judged += 1
            unsupported += 1
            bad.append(
                f"{fig.text.strip()} (cited {', '.join(refs)}; {miscited[fig.start]} states it)"
            )
            continue
        if not refs and reported:
            # A system that reports its citations without inline markers: any cited passage.
            refs = list(reported)
        factors, given = counts_of(inp.answer, fig, inp.case), given_figures(inp.case)
        # A count a cited passage already prices in ("19 € per set of 6 panels") is no factor.
        factors = tuple(
            k
            for k in factors
            if not any(priced_in(passages.get(r, ""), fig, k) for r in (*refs, *inp.cited))
            or str(k) in given_numbers(inp.case)
        )
        if not refs or shares_a_citation(inp.answer, fig, every, cite, inp.settings.figure_window):
            # A result worked out from what came before, with no citation before the next
            # figure, is sourced by its inputs, and sources its restatements ("= 11,60 €;
            # with the 20 % [doc:b], 11,60 € × 0,80 = 9,28 €").
            start = sentence_start(inp.answer, fig)
            if worked_out(fig, start, inp.answer, shown, given_figs, factors, inp.lang):
                shown.append(fig)
                continue
        # A list under a line that cites its source once ("... [doc:pricing#plans]:").
        refs = refs or lead_citations(inp.answer, fig, cite)
        if not refs:
            continue  # no_unsourced_number reports it
        judged += 1
        times = tuple(f for f in given if f.kind == "time")
        backing = [
            r
            for r in refs
            if passage_states(passages.get(r, ""), fig, factors, times, (), (), rated)
        ]
        # Refs side by side count together: a discount in one, the price it is taken off in
        # the other ("36 € [doc:plans][doc:discounts]"); the customer's figures are inputs too.
        together = "\n".join(passages.get(r, "") for r in refs)
        beside = tuple(
            f for r in inp.cited if r not in refs for f in parse_figures(passages.get(r, ""))
        ) + tuple(shown)
        if not backing and (
            passage_states(together, fig, factors, times, given, beside, rated)
            or bracketed_from(inp.answer, fig, together, given_numbers(inp.case), inp.lang)
        ):
            shown.append(fig)
            continue
        if not backing and shares_a_citation(inp.answer, fig, every, cite, window):
            # No citation of its own: the next one, after another figure, is that figure's.
            # Any ref its sentence cites after it may state it ("children aged 2 to 11 get
            # 89 € [doc:prices] less 40 % [doc:ages]").
            later = sentence_citations(inp.answer, fig, cite, window)
            backing = [
                r
                for r in later
                if passage_states(passages.get(r, ""), fig, factors, times, given, (), rated)
            ]
            joined = "\n".join(passages.get(r, "") for r in later)
            if not backing and total_first(
                inp.answer,
                fig,
                every,
                lambda g, j=joined, k=factors, c=times, gv=given: passage_states(  # type: ignore[misc]
                    j, g, k, c, gv, (), rated
                ),
            ):
                shown.append(fig)
                continue
            if not backing and any(s.same(fig) for s in shown):
                # Or it restates a figure the answer sourced before ("15 Go [doc:a] ...
                # 15 Go + 3 Go [doc:b] = 18 Go"): its source is where it was first given.
                shown.append(fig)
                continue
        if (
            not backing
            and any(s.same(fig) and s.end <= sentence_start(inp.answer, fig) for s in stated)
            and not _of_its_kind([passages.get(r, "") for r in refs], fig)
        ):
            # A figure restated after an earlier sentence cited it, cited for the rule its sentence
            # adds ("ab dann zahlen Sie 29 € [doc:price-change]"): that passage gives no
            # figure of its kind, so the citation is the rule's, not the figure's.
            shown.append(fig)
            continue
        if not backing:
            unsupported += 1
            bad.append(f"{fig.text.strip()} (cited {', '.join(refs)})")
            continue
        # Stated by the passage, but about what? Two figures swapped between their subjects
        # both occur in the passage, each about the other thing.
        binds = [
            bind(inp.answer, fig, passages.get(r, ""), inp.lang, inp.synonyms, asked)
            for r in backing
        ]
        if not any(b.bound for b in binds) and not pointed_back(inp.answer, fig, stated, inp.lang):
            unsupported += 1
            other = next(b.other for b in binds if b.other)
            bad.append(f'{fig.text.strip()} (the passage says it about something else; "{other}")')
            continue
        per = other_period(inp.answer, fig, (passages.get(r, "") for r in backing))
        if per:
            unsupported += 1
            bad.append(f'{fig.text.strip()} (paid per another period: the passage says "{per}")')
            continue
        shown.append(fig)
        stated.append(fig)
    if not judged:
        return skipped("no cited figures to check against their passages")
    if bad:
        return ratio(
            judged - unsupported, judged, f"not stated by the cited passage: {'; '.join(bad)}"
        )
    return ratio(judged, judged, f"{judged} cited figures, each stated by its passage")

"""`local/extractive`: a deterministic, dependency-free, retrieval-only offline assistant.

It answers from the case's retrieved passages by choosing the sentences that share
the most (rare) words with the question (and, at half weight, with the customer's earlier
turns), cites each as [doc:REF], and declines when nothing retrieved is relevant enough.
It is a real baseline: it passes questions whose answer is stated in one passage and
fails ones that need reasoning, arithmetic, another language or judgement about which
passage is current.
"""

from __future__ import annotations

import math
import re
import time
import unicodedata
from collections import Counter
from typing import Any

from evals.reply import Reply
from evals.suite.case import Case

MODEL_NAME = "local/extractive"
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(€$£])")
_STOP = frozenset(
    """a an the and or but if of to in on at by for with from as is are was were be been am do does
    did can could would should will shall may might must i me my we our you your it its this that
    these those there here what which who whom how when where why not no yes so than then too very
    just about into over under up down out any all some each per also have has had get got please
    hi hello thanks thank regards dear team der die das und oder ist sind ein eine wie was wir ich
    sie es für mit von zu auf im in bei le la les et est un une des pour que qui""".split()
)
DECLINE = (
    "I don't know: the documentation I have does not cover this. "
    "I'll hand this over to our support team."
)


def _stem(word: str) -> str:
    """A crude language-neutral stem: enough to match 'seats' with 'seat'."""
    return word[:6] if len(word) > 6 else word.rstrip("s") or word


def terms(text: str) -> list[str]:
    text = unicodedata.normalize("NFKC", text).casefold()
    return [_stem(w) for w in _WORD.findall(text) if w not in _STOP and len(w) > 1]


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.split(text.strip()) if s.strip()]


class ExtractiveModel:
    """The built-in offline model. `min_score` is the relevance below which it declines."""

    def __init__(self, model: str, *, max_sentences: int = 3, min_score: float = 1.2) -> None:
        self.model = model
        self.max_sentences = max_sentences
        self.min_score = min_score

    def stamp(self) -> dict[str, Any]:
        return {
            "kind": "local",
            "max_sentences": self.max_sentences,
            "min_score": self.min_score,
        }

    def reply_to(self, case: Case) -> Reply:
        """The answer, computed synchronously: pure function of the case."""
        start = time.perf_counter()
        query = set(terms(case.question))
        # In a conversation the customer's earlier turns say what a follow-up ("and on
        # Starter?") is about; they count half as much as the final turn. Earlier assistant
        # turns count not at all: what was said before is no evidence.
        said = " ".join(m["content"] for m in case.messages if m.get("role") == "user")
        earlier = set(terms(said)) - query
        # The customer's context (their plan, say) breaks ties; alone it is no reason to answer.
        ctx = set(terms(" ".join(str(v) for v in case.context.values() if v is not None)))
        candidates: list[tuple[int, int, str, str]] = []
        for pi, passage in enumerate(case.retrieved):
            for si, sent in enumerate(sentences(passage["text"])):
                candidates.append((pi, si, passage["ref"], sent))
        # Inverse document frequency over sentences, so "seat" in every line counts for little.
        df: Counter[str] = Counter()
        for *_, sent in candidates:
            df.update(set(terms(sent)))
        n = max(len(candidates), 1)
        scored = []
        for pi, si, ref, sent in candidates:
            words = set(terms(sent))
            score = sum(math.log(1 + n / df[w]) for w in words if w in query)
            score += 0.5 * sum(math.log(1 + n / df[w]) for w in words if w in earlier)
            bonus = 0.25 * sum(1 for w in words if w in ctx)
            scored.append((score, bonus, pi, si, ref, sent))
        relevant = [t for t in scored if t[0] >= self.min_score]
        ranked = sorted(relevant, key=lambda t: (-(t[0] + t[1]), t[2], t[3]))
        best = [(t[0], t[2], t[3], t[4], t[5]) for t in ranked[: self.max_sentences]]
        latency = max(0.0, (time.perf_counter() - start) * 1000)
        if not best:
            return Reply(
                answer=DECLINE,
                retrieved=case.retrieved_refs,
                cited=[],
                abstained=True,
                latency_ms=latency,
                resolved_model=self.model,
                usage={"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
            )
        # Keep document order so the answer reads as the passages do.
        chosen = sorted(best, key=lambda t: (t[1], t[2]))
        parts = [_cite(sent, ref) for _, _, _, ref, sent in chosen]
        cited = list(dict.fromkeys(ref for *_, ref, _ in chosen))
        return Reply(
            answer=" ".join(parts),
            retrieved=case.retrieved_refs,
            cited=cited,
            abstained=False,
            latency_ms=latency,
            resolved_model=self.model,
            usage={"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
        )

    async def answer(self, case: Case, prompt: str, epoch: int) -> Reply:
        return self.reply_to(case)

    async def aclose(self) -> None:
        return None


def _cite(sentence: str, ref: str) -> str:
    """Put the citation before the sentence's final stop, as the prompt asks people to."""
    s = sentence.rstrip()
    if s and s[-1] in ".!?":
        return f"{s[:-1]} [doc:{ref}]{s[-1]}"
    return f"{s} [doc:{ref}]."

"""A rule page's "Automated hints" section: the rule's detectors, what each looks for and what
it does not see, whether it is on by default (a preview one says why not), its measured
precision on the judged real-engine corpus, and its ast-grep rule.

Returns Markdown lines for :func:`rlt_rules.site.pages.rule_page` to splice in (for a rule
without detectors, why none: its ``no_detector`` sentence, or nothing). Library text goes through
the same inert-Markdown path as every other field of the page; the ast-grep rule is a YAML
block, fenced as every view fences code.
"""

from __future__ import annotations

from ..library.model import CorpusScope, Detector, Measured, Rule
from ..render.code import code_span, fenced
from ..render.inert import inert_markdown
from ..render.yaml_text import yaml_text
from .cache import PageCache

#: The exports page, from a rule page (``rules/R03.md``).
EXPORTS_LINK = "../exports.md"


def _markdown(text: str, *, at_line_start: bool = True) -> str:
    return inert_markdown(text, at_line_start=at_line_start, attr_lists=True)


def _rule_yaml(detector: Detector) -> str:
    """The detector's ast-grep rule as a fenced YAML block; kept in the build's
    :class:`~.cache.PageCache` for the next build (a live preview renders every rule page again
    to find the ones that changed)."""
    data = {"rule": detector.rule}
    if detector.constraints:
        data["constraints"] = detector.constraints
    return fenced(yaml_text(data, width=88).rstrip("\n"), "yaml")


def measured_markdown(measured: Measured) -> str:
    """``**Measured on sglang-0.5.23:** 61 hints, 50 tp, 5 arguable, 6 fp: tp-precision 0.82
    (high).``; for figures of the whole package, ``**Measured on all of sglang-0.5.23** (it
    raises nothing on the judged slice): ...``."""
    figures = (
        f"{measured.hints} hints, {measured.tp} tp, {measured.arguable} arguable, {measured.fp} fp"
    )
    if measured.precision is not None:
        figures += f": tp-precision {measured.precision:.2f} ({measured.level})"
    if measured.scope is CorpusScope.PACKAGE:
        return (
            f"**Measured on all of {code_span(measured.corpus)}** (it raises nothing on the "
            f"judged slice): {figures}."
        )
    return f"**Measured on {code_span(measured.corpus)}:** {figures}."


def hints_markdown(rule: Rule, cache: PageCache | None = None) -> list[str]:
    """The section's lines, ending with a blank line; for a rule without detectors, why none
    (its ``no_detector``), or nothing when it does not say."""
    if not rule.detectors:
        if rule.no_detector is None:
            return []
        return [
            "## Automated hints",
            "",
            f"**No detector:** {_markdown(rule.no_detector, at_line_start=False)} "
            f"Reviewers are the check for this rule: `rlt-rules scan` raises nothing for it, "
            "and the detectors' exam leaves its cases to reviewers.",
            "",
        ]
    memo = (cache or PageCache()).detector_yaml
    out = [
        "## Automated hints",
        "",
        f"`rlt-rules scan` and the [ast-grep export]({EXPORTS_LINK}) point reviewers at code "
        "shaped like this rule's triggers. A hint sends you to this page; it is not a verdict, "
        "and silence is not approval.",
        "",
    ]
    if any(detector.measured for detector in rule.detectors):
        out += [
            "Each detector is measured on real engine code: every hint it raises on the judged "
            "slice of the corpus named (or, for one that raises nothing there, anywhere in the "
            "package) is read and judged; tp-precision is the share a reviewer applying this "
            "rule would raise.",
            "",
        ]
    for detector in rule.detectors:
        out += [
            f"### {code_span(f'{rule.id}-{detector.id}')}",
            "",
            f"**Looks for:** {_markdown(detector.message, at_line_start=False)}",
            "",
        ]
        if detector.note:
            out += [f"**Sees and misses:** {_markdown(detector.note, at_line_start=False)}", ""]
        if detector.preview:
            reason = _markdown(detector.preview_reason or "", at_line_start=False)
            out += [f"**Preview** (runs only with `rlt-rules scan --preview`): {reason}", ""]
        if detector.measured is not None:
            out += [measured_markdown(detector.measured), ""]
        out += [memo.get(detector, _rule_yaml), ""]
    return out

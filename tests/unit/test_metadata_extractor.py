"""normalise(), the extractor's prompt and error handling, extract_filters' validation and filter_context, with a fake chat model."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest
from pydantic import BaseModel

from ragwire.errors import ProviderError
from ragwire.metadata import (
    FieldSpec,
    FinancialMetadata,
    MetadataExtractor,
    MetadataSchema,
    extract_filters,
    filter_context,
    normalise,
)


class FakeChat:
    """A chat model stand-in: ``with_structured_output(model).invoke(messages)`` returns the queued replies."""

    model_name = "fake-model"

    def __init__(self, *replies: Any) -> None:
        self.replies = list(replies)
        self.calls: list[list[Any]] = []
        self.models: list[type[BaseModel]] = []

    def with_structured_output(self, model: type[BaseModel], **kwargs: Any) -> FakeChat:
        self.models.append(model)
        return self

    def invoke(self, messages: list[Any]) -> Any:
        self.calls.append(messages)
        reply = self.replies.pop(0)
        if isinstance(reply, BaseException):
            raise reply
        return reply

    def prompt(self, call: int = -1) -> str:
        return "\n".join(m.content for m in self.calls[call])


SCHEMA = MetadataSchema([
    FieldSpec("company", "str", "company name"),
    FieldSpec("year", "int"),
    FieldSpec("ratio", "float"),
    FieldSpec("audited", "bool"),
    FieldSpec("tags", "list[str]"),
    FieldSpec("doc_type", "str", values=("manual", "faq")),
    FieldSpec("years", "list[int]"),
])


# -- normalise -----------------------------------------------------------------------


def test_normalise_trims_and_lowercases_strings_and_drops_empty_ones():
    out = normalise(SCHEMA.fields, {"company": "  Apple   Inc. ", "tags": [" Cloud ", "", "cloud", None, "AI"]})
    assert out == {"company": "apple inc.", "tags": ["cloud", "ai"]}
    assert normalise(SCHEMA.fields, {"company": "   ", "tags": []}) == {}


def test_normalise_converts_ints_and_drops_junk():
    assert normalise(SCHEMA.fields, {"year": "2024"})["year"] == 2024
    assert normalise(SCHEMA.fields, {"year": 2024.0})["year"] == 2024
    assert normalise(SCHEMA.fields, {"year": " 2024 "})["year"] == 2024
    for junk in ("FY2024", "soon", 2024.5, True, {"y": 1}):
        assert "year" not in normalise(SCHEMA.fields, {"year": junk})
    assert normalise(SCHEMA.fields, {"years": ["2023", 2024, "x", 2024]}) == {"years": [2023, 2024]}
    assert normalise(SCHEMA.fields, {"years": 2025}) == {"years": [2025]}


def test_normalise_converts_floats_and_bools():
    assert normalise(SCHEMA.fields, {"ratio": "0.25", "audited": "Yes"}) == {"ratio": 0.25, "audited": True}
    assert normalise(SCHEMA.fields, {"ratio": 3, "audited": False}) == {"ratio": 3.0, "audited": False}
    assert normalise(SCHEMA.fields, {"ratio": "nan", "audited": "maybe"}) == {}


def test_normalise_drops_an_integer_beyond_the_store_range_instead_of_storing_a_float(caplog):
    # guards issue 19.9: 10**20 was stored and came back as 1e+20
    with caplog.at_level(logging.WARNING, logger="ragwire.metadata.extractor"):
        assert normalise(SCHEMA.fields, {"year": 10**20, "company": "x"}) == {"company": "x"}
        assert normalise(SCHEMA.fields, {"year": "1e20"}) == {}
        assert normalise(SCHEMA.fields, {"years": [2024, -(2**63) - 1]}) == {"years": [2024]}
    assert "metadata field year: 100000000000000000000 is outside the 64-bit integer range" in caplog.text
    assert normalise(SCHEMA.fields, {"year": 2**63 - 1}) == {"year": 2**63 - 1}


def test_normalise_warns_naming_the_field_of_each_unconvertible_value_but_not_of_empty_ones(caplog):
    with caplog.at_level(logging.WARNING, logger="ragwire.metadata.extractor"):
        out = normalise(SCHEMA.fields, {"company": "Apple", "year": "n/a", "ratio": "high", "audited": "",
                                        "years": [2024, "x"]})
    assert out == {"company": "apple", "years": [2024]}
    messages = [r.getMessage() for r in caplog.records]
    assert messages == [
        "metadata field year: 'n/a' is not an integer; the field is dropped, the others are kept",
        "metadata field ratio: 'high' is not a number; the field is dropped, the others are kept",
        "metadata field years: 'x' is not an integer; the item is dropped, the others are kept",
    ]


def test_extract_reads_the_reply_leniently_so_one_bad_value_keeps_the_others():
    # the client validates against the model it is given: that model must accept any value
    llm = FakeChat({"company": "Apple", "year": "n/a"})
    extractor = MetadataExtractor(llm, schema=SCHEMA)
    assert extractor.extract("text") == {"company": "apple"}
    (model,) = llm.models
    assert model.model_validate({"year": "n/a", "ratio": [1]}).model_dump() == {
        "company": None, "year": "n/a", "ratio": [1], "audited": None, "tags": None, "doc_type": None, "years": None}


def test_normalise_drops_values_outside_the_allowed_list_with_a_debug_log(caplog):
    with caplog.at_level(logging.DEBUG, logger="ragwire.metadata.extractor"):
        assert normalise(SCHEMA.fields, {"doc_type": " FAQ "}) == {"doc_type": "faq"}
        assert normalise(SCHEMA.fields, {"doc_type": "brochure"}) == {}
    assert "brochure" in caplog.text


def test_normalise_ignores_unknown_keys_and_accepts_a_model():
    assert normalise(SCHEMA.fields, {"company": "X", "other": "y"}) == {"company": "x"}
    reply = FinancialMetadata(company_name="Apple Inc.", fiscal_year=[2025])
    fields = MetadataSchema.from_model(FinancialMetadata).fields
    assert normalise(fields, reply) == {"company_name": "apple inc.", "fiscal_year": [2025]}


# -- extract -------------------------------------------------------------------------


def test_extract_sends_the_first_max_chars_and_the_stored_values_and_normalises():
    llm = FakeChat({"company": "Apple Inc.", "year": "2024", "tags": None})
    extractor = MetadataExtractor(llm, schema=SCHEMA, max_chars=20)
    text = "A" * 20 + "TAIL-NOT-SENT"
    out = extractor.extract(text, stored_values={"company": ["apple inc.", "microsoft"], "unknown": ["x"]})
    assert out == {"company": "apple inc.", "year": 2024}
    prompt = llm.prompt()
    assert "A" * 20 in prompt and "TAIL-NOT-SENT" not in prompt
    assert '- company: ["apple inc.", "microsoft"]' in prompt
    assert "unknown" not in prompt
    # the LLM sees the schema's JSON schema; the reply is read leniently and checked per field
    assert [m.model_json_schema() for m in llm.models] == [SCHEMA.model.model_json_schema()]


def test_default_extractor_uses_financial_metadata():
    llm = FakeChat(FinancialMetadata(company_name="Apple", fiscal_year=[2025]))
    extractor = MetadataExtractor(llm)
    assert [f.name for f in extractor.fields] == ["company_name", "doc_type", "fiscal_quarter", "fiscal_year"]
    assert extractor.extract("10-K") == {"company_name": "apple", "fiscal_year": [2025]}
    assert [m.model_json_schema() for m in llm.models] == [FinancialMetadata.model_json_schema()]


def test_custom_prompt_template_gets_the_content(tmp_path):
    path = tmp_path / "m.yaml"
    path.write_text("prompt: 'Read this: {content} -- end'\nfields:\n  - name: topic\n    type: str\n")
    llm = FakeChat({"topic": "Pumps"})
    extractor = MetadataExtractor.from_yaml(llm, path)
    assert extractor.extract("{not a format field} pumps") == {"topic": "pumps"}
    assert "Read this: {not a format field} pumps -- end" in llm.prompt()


def test_a_reply_that_fails_validation_is_a_one_line_provider_error():
    try:
        SCHEMA.model.model_validate({"year": "abc"})
    except ValueError as exc:
        error = exc
    llm = FakeChat(error)
    with pytest.raises(ProviderError, match=r"^LLM metadata extraction \(FakeChat model fake-model\) failed: the reply does not fit") as info:
        MetadataExtractor(llm, schema=SCHEMA).extract("text")
    assert "\n" not in str(info.value)


def test_a_parsing_error_reported_by_include_raw_is_a_provider_error():
    llm = FakeChat({"raw": None, "parsed": None, "parsing_error": ValueError("Invalid json output: {oops")})
    with pytest.raises(ProviderError, match="reply does not fit the schema: ValueError: Invalid json output"):
        MetadataExtractor(llm, schema=SCHEMA).extract("text")


def test_a_non_object_reply_is_a_provider_error():
    with pytest.raises(ProviderError, match="expected a JSON object, got list"):
        MetadataExtractor(FakeChat(["a"]), schema=SCHEMA).extract("text")


def test_extract_batch_runs_each_text_and_a_failure_raises():
    llm = FakeChat({"company": "A"}, {"company": "B"})
    assert MetadataExtractor(llm, schema=SCHEMA).extract_batch(["one", "two"]) == [{"company": "a"}, {"company": "b"}]
    llm = FakeChat({"company": "A"}, ValueError("bad json"))
    with pytest.raises(ProviderError):
        MetadataExtractor(llm, schema=SCHEMA).extract_batch(["one", "two"])


def test_constructor_checks_its_arguments():
    with pytest.raises(ValueError, match="max_chars"):
        MetadataExtractor(FakeChat(), max_chars=0)
    with pytest.raises(ValueError, match="retries"):
        MetadataExtractor(FakeChat(), retries=-1)


# -- extract_filters -----------------------------------------------------------------

STORED = {
    "company": ["apple", "Microsoft Corporation", "alphabet"],
    "year": [2023, 2024],
    "tags": ["cloud", "artificial intelligence"],
    "doc_type": ["manual", "faq"],
}


def _filters(reply: dict[str, Any], stored: dict[str, list[Any]] | None = STORED, query: str = "q") -> Any:
    llm = FakeChat(reply)
    result = extract_filters(MetadataExtractor(llm, schema=SCHEMA), query, stored)
    return result, llm


def test_filter_values_map_onto_stored_spellings():
    assert _filters({"company": "Apple Inc."})[0] == {"company": "apple"}
    assert _filters({"company": "microsoft corporation"})[0] == {"company": "Microsoft Corporation"}
    assert _filters({"company": "Microsoft Corp."})[0] == {"company": "Microsoft Corporation"}
    assert _filters({"company": "alphabett"})[0] == {"company": "alphabet"}


def test_filter_values_matching_nothing_stored_are_dropped_and_none_is_returned_when_empty():
    assert _filters({"company": "oracle"})[0] is None
    assert _filters({"company": "oracle", "year": 2024})[0] == {"year": 2024}


def test_numeric_filters_must_be_stored_values():
    assert _filters({"year": "2024"})[0] == {"year": 2024}
    assert _filters({"year": 2019})[0] is None


def test_list_filter_items_are_validated_one_by_one():
    result, _ = _filters({"tags": ["Cloud", "quantum", "artificial inteligence"]})
    assert result == {"tags": ["cloud", "artificial intelligence"]}


def test_a_field_without_stored_values_is_dropped_but_unknown_stored_values_keep_everything():
    assert _filters({"ratio": 0.5, "company": "apple"})[0] == {"company": "apple"}
    assert _filters({"ratio": 0.5, "company": "Oracle"}, stored=None)[0] == {"ratio": 0.5, "company": "oracle"}


def test_filter_prompt_asks_only_for_clear_filters_and_lists_stored_values():
    _, llm = _filters({}, query="apple manuals from 2024")
    prompt = llm.prompt()
    assert "clearly asks" in prompt
    assert "Question: apple manuals from 2024" in prompt
    assert '- year: [2023, 2024]' in prompt


def test_filter_llm_failures_propagate_as_provider_errors():
    llm = FakeChat(ValueError("Invalid json output"))
    with pytest.raises(ProviderError, match="LLM filter extraction"):
        extract_filters(MetadataExtractor(llm, schema=SCHEMA), "q", STORED)


# -- filter_context ------------------------------------------------------------------


def test_filter_context_has_the_spec_layout():
    text = filter_context(
        ["research_focus", "publication_year"],
        {"research_focus": ["muscle-growth", "endurance", "recovery", "sleep"], "publication_year": [2022, 2023]},
        {"research_focus": "muscle building", "publication_year": 2023},
        limit=3,
    )
    assert text == (
        "## RAGWire Filter Context\n"
        "\n"
        "### Available Metadata Fields and Stored Values\n"
        '- **research_focus**: ["muscle-growth", "endurance", "recovery", ...]\n'
        "- **publication_year**: [2022, 2023]\n"
        "\n"
        "### Extracted Filters from Query\n"
        "- **research_focus**: `muscle building`\n"
        "- **publication_year**: `2023`\n"
        "\n"
        "### Instructions\n"
        "1. Review the extracted filters above.\n"
        "2. If an extracted value does not match or closely relate to any stored value, adjust or drop that filter.\n"
        "3. If the query has no clear metadata intent, pass an empty dict {} as filters.\n"
        "4. Pass the final filters dict to the retrieval tool as filters=."
    )


def test_filter_context_says_none_when_nothing_was_extracted_and_shows_lists_as_json():
    text = filter_context(["tags"], {}, None)
    assert "- **tags**: []" in text
    assert "### Extracted Filters from Query\n- none\n" in text
    text = filter_context(["tags"], {"tags": ["a"]}, {"tags": ["a", "b"]})
    assert '- **tags**: `["a", "b"]`' in text
    assert json.loads(text.split("- **tags**: ")[1].split("\n")[0]) == ["a"]

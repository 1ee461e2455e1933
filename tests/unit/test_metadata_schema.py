"""metadata.yaml → MetadataSchema: validation messages, the dynamic model, the fingerprint, the default models."""

from __future__ import annotations

import typing
from pathlib import Path
from typing import Literal, Optional

import pytest
from pydantic import BaseModel, Field

from ragwire.errors import ConfigError
from ragwire.metadata import (
    DocumentMetadata,
    FieldSpec,
    FinancialMetadata,
    MetadataSchema,
    load_schema,
)

EXAMPLE = Path(__file__).resolve().parents[2] / "metadata.yaml.example"


def _write(tmp_path: Path, text: str, name: str = "metadata.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_example_file_loads_with_its_four_fields_and_allowed_values():
    schema = load_schema(EXAMPLE)
    assert schema.names == ["product", "doc_type", "firmware_version", "year"]
    by_name = {f.name: f for f in schema.fields}
    assert by_name["year"].type == "int"
    assert by_name["doc_type"].values == ("manual", "policy", "release-notes", "faq", "price-list", "training")
    assert by_name["product"].values is None
    assert schema.prompt is None


def test_unknown_type_names_file_field_index_and_suggests_the_right_one(tmp_path):
    path = _write(tmp_path, "fields:\n  - name: a\n    type: str\n  - name: year\n    type: integer\n")
    with pytest.raises(ConfigError, match=r"metadata\.yaml: fields\[1\]\.type: unknown type 'integer' \(did you mean 'int'\?\)"):
        load_schema(path)


def test_unknown_field_key_suggests_the_right_one(tmp_path):
    path = _write(tmp_path, "fields:\n  - name: a\n    type: str\n    descripton: the a\n")
    with pytest.raises(ConfigError, match=r"fields\[0\]\.descripton: unknown key \(did you mean 'description'\?\)"):
        load_schema(path)


def test_unknown_top_level_key_suggests_the_right_one(tmp_path):
    path = _write(tmp_path, "field:\n  - name: a\n")
    with pytest.raises(ConfigError, match=r"field: unknown key \(did you mean 'fields'\?\)"):
        load_schema(path)


def test_duplicate_field_name_is_refused(tmp_path):
    path = _write(tmp_path, "fields:\n  - name: a\n    type: str\n  - name: a\n    type: int\n")
    with pytest.raises(ConfigError, match=r"fields\[1\]\.name: duplicate field name 'a'"):
        load_schema(path)


def test_every_problem_is_reported_on_its_own_line(tmp_path):
    path = _write(tmp_path, "fields:\n  - name: a\n    type: strr\n  - name: chunk_id\n    type: str\n")
    with pytest.raises(ConfigError) as info:
        load_schema(path)
    assert len(info.value.problems) == 2
    assert "reserved" in info.value.problems[1]


@pytest.mark.parametrize("name", ["file_hash", "chunk_index", "source", "metadata_status"])
def test_system_field_names_are_reserved(tmp_path, name):
    path = _write(tmp_path, f"fields:\n  - name: {name}\n    type: str\n")
    with pytest.raises(ConfigError, match=rf"fields\[0\]\.name: '{name}' is reserved"):
        load_schema(path)


@pytest.mark.parametrize("name", ["title", "author", "year", "language"])
def test_file_property_names_are_allowed_as_llm_fields(tmp_path, name):
    schema = load_schema(_write(tmp_path, f"fields:\n  - name: {name}\n    type: str\n"))
    assert schema.names == [name]


def test_values_of_the_wrong_type_and_a_prompt_without_placeholder_are_refused(tmp_path):
    path = _write(
        tmp_path,
        "prompt: 'Extract things'\nfields:\n  - name: year\n    type: int\n    values: [2024, 'soon']\n",
    )
    with pytest.raises(ConfigError) as info:
        load_schema(path)
    text = str(info.value)
    assert "fields[0].values: 'soon' is not a int" in text
    assert "prompt: must contain the {content} placeholder" in text


def test_missing_file_and_bad_yaml_are_config_errors(tmp_path):
    with pytest.raises(ConfigError, match="not found"):
        load_schema(tmp_path / "nope.yaml")
    with pytest.raises(ConfigError, match="not valid YAML"):
        load_schema(_write(tmp_path, "fields: [\n"))


def test_dynamic_model_has_optional_fields_with_descriptions_and_allowed_values(tmp_path):
    schema = load_schema(EXAMPLE)
    model = schema.model
    assert model().model_dump() == {"product": None, "doc_type": None, "firmware_version": None, "year": None}
    info = model.model_fields
    assert info["year"].annotation == Optional[int]
    assert info["product"].description.startswith("The product the document is about")
    assert 'Allowed values: "manual", "policy"' in info["doc_type"].description
    assert model(year="2024").year == 2024


def test_list_types_become_optional_lists():
    schema = MetadataSchema([FieldSpec("tags", "list[str]", "topic tags"), FieldSpec("years", "list[int]")])
    fields = schema.model.model_fields
    assert fields["tags"].annotation == Optional[list[str]]
    assert fields["years"].annotation == Optional[list[int]]


def test_fingerprint_changes_with_a_description_but_not_with_key_order(tmp_path):
    a = load_schema(_write(tmp_path, "fields:\n  - name: a\n    type: str\n    description: one\n", "a.yaml"))
    b = load_schema(_write(tmp_path, "fields:\n  - description: one\n    type: str\n    name: a\n", "b.yaml"))
    c = load_schema(_write(tmp_path, "fields:\n  - name: a\n    type: str\n    description: two\n", "c.yaml"))
    d = load_schema(
        _write(tmp_path, "prompt: 'Doc: {content}'\nfields:\n  - name: a\n    type: str\n    description: one\n", "d.yaml")
    )
    assert a.fingerprint == b.fingerprint
    assert a.fingerprint != c.fingerprint
    assert a.fingerprint != d.fingerprint
    assert len(a.fingerprint) == 64


def test_from_model_reads_types_descriptions_and_literal_values_and_keeps_the_model():
    class MySchema(BaseModel):
        organization: Optional[str] = Field(None, description="Organization name in lowercase")
        doc_type: Optional[Literal["contract", "policy"]] = None
        effective_year: Optional[int] = Field(None, description="Year effective")
        tags: Optional[typing.List[str]] = None  # noqa: UP006 - the spec's example uses typing.List

    schema = MetadataSchema.from_model(MySchema)
    assert [(f.name, f.type) for f in schema.fields] == [
        ("organization", "str"), ("doc_type", "str"), ("effective_year", "int"), ("tags", "list[str]")
    ]
    assert schema.fields[0].description == "Organization name in lowercase"
    assert schema.fields[1].values == ("contract", "policy")
    assert schema.model is MySchema


def test_from_model_refuses_unsupported_types():
    class Bad(BaseModel):
        nested: Optional[dict] = None

    with pytest.raises(ConfigError, match="nested: unsupported type"):
        MetadataSchema.from_model(Bad)


def test_financial_metadata_is_the_default_schema_with_four_optional_fields():
    schema = MetadataSchema.from_model(FinancialMetadata)
    assert [(f.name, f.type) for f in schema.fields] == [
        ("company_name", "str"), ("doc_type", "str"), ("fiscal_quarter", "str"), ("fiscal_year", "list[int]")
    ]
    assert FinancialMetadata().model_dump() == dict.fromkeys(schema.names)


def test_document_metadata_accepts_the_spec_example_and_extra_fields():
    meta = DocumentMetadata(
        company_name="apple",
        doc_type="10-k",
        fiscal_year=[2025],
        source="/data/Apple_10k_2025.pdf",
        file_name="Apple_10k_2025.pdf",
        file_type="pdf",
        file_hash="abc123",
        chunk_id="abc123_0",
        chunk_hash="def456",
        chunk_index=0,
        total_chunks=42,
        product="aurora ar-7",
    )
    dumped = meta.model_dump()
    assert dumped["fiscal_year"] == [2025] and dumped["chunk_index"] == 0
    assert dumped["product"] == "aurora ar-7"

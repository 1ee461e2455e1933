"""`import ragwire` stays light: heavy optional packages load only when used."""

import subprocess
import sys

HEAVY = ("torch", "sentence_transformers", "boto3", "cohere", "mcp", "markitdown", "langchain_openai", "transformers")


def test_import_ragwire_loads_no_heavy_optional_package():
    code = (
        "import sys, ragwire\n"
        f"heavy = {HEAVY!r}\n"
        "print(','.join(sorted(m for m in sys.modules if m.split('.')[0] in heavy)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_public_api_names_resolve():
    code = (
        "import ragwire\n"
        "missing = [n for n in ragwire.__all__ if not hasattr(ragwire, n)]\n"
        "for n in ('QdrantStore', 'get_retriever', 'hybrid_search', 'mmr_search'):\n"
        "    getattr(ragwire, n)\n"
        "print(missing)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"

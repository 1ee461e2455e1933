"""How the ONNX embedder cuts texts sorted by length into batches (pure logic, no model)."""

from __future__ import annotations

from ragwire.providers.onnx import MAX_PADDING, batches

# Token lengths of the 27 passages an extractive answer on examples/docs embeds.
PASSAGES = [15, 17, 18, 18, 22, 23, 24, 24, 26, 27, 28, 28, 30, 30, 31, 32, 32, 34, 34, 35, 36, 38, 42, 42,
            43, 46, 63]


def _padded(cut: list[list[int]], lengths: list[int]) -> int:
    return sum(len(b) * max(lengths[i] for i in b) for b in cut)


def test_every_text_lands_in_one_batch_in_length_order():
    order = list(range(len(PASSAGES)))
    cut = batches(order, PASSAGES, 32)
    assert [i for b in cut for i in b] == order


def test_mixed_lengths_are_cut_so_padding_stays_small():
    cut = batches(list(range(len(PASSAGES))), PASSAGES, 32)
    assert _padded(cut, PASSAGES) < 0.6 * len(PASSAGES) * max(PASSAGES)  # one batch would pad all to 63
    for b in cut:
        if len(b) > 1:
            real = sum(PASSAGES[i] for i in b)
            assert len(b) * max(PASSAGES[i] for i in b) <= (1 + MAX_PADDING) * real


def test_texts_of_like_length_fill_whole_batches():
    lengths = [200, 230] + [256] * 62
    cut = batches(sorted(range(len(lengths)), key=lengths.__getitem__), lengths, 32)
    assert [len(b) for b in cut] == [32, 32]


def test_no_batch_exceeds_the_batch_size():
    lengths = [10] * 100
    assert [len(b) for b in batches(list(range(100)), lengths, 32)] == [32, 32, 32, 4]

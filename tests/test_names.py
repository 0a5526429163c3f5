"""Kernel names that fit a column and still tell kernels apart (warpscope/explore/names.py),
on a real PyTorch training step's names (templated, namespaced, sharing long heads)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import warpscope
from tests.conftest import CNN_STEP
from warpscope.explore.names import ELLIPSIS, labels

CNN = CNN_STEP / "cnn_full_raw_base.csv.gz"


@pytest.fixture(scope="module")
def cnn_names() -> list[str]:
    return warpscope.load(CNN).launches["kernel_short"].unique(maintain_order=True).to_list()


@pytest.mark.parametrize("width", [24, 32, 48, 73, 120])
def test_labels_fit_and_stay_distinct_on_a_pytorch_step(cnn_names, width):
    out = labels(cnn_names, width)
    assert len(set(out.values())) == len(cnn_names) == 54
    assert all(len(label) <= width for label in out.values())
    # namespaces go first: a name that fits without them is shown whole, without them
    whole = "max_pool_forward_nchw<float, int>"
    if width >= len(whole):
        assert out["at::<unnamed>::max_pool_forward_nchw<float, int>"] == whole


def test_the_stretch_where_names_differ_is_kept(cnn_names):
    """Two cuDNN batch-norm kernels differ only in one template argument, deep in the name."""
    out = labels(cnn_names, 32)
    a = out["cudnn::bn_fw_tr_1C11_kernel_NCHW<float, float, int, 512, 1, 1, 1>"]
    b = out["cudnn::bn_fw_tr_1C11_kernel_NCHW<float, float, int, 128, 1, 1, 1>"]
    assert ELLIPSIS in a and "512" in a and "128" in b and a.startswith("bn_fw_tr")


@settings(max_examples=200, deadline=None)
@given(
    head=st.text("abc_:<>, 0123", min_size=0, max_size=80),
    tails=st.lists(st.text("xyz<>, 789", min_size=0, max_size=60), min_size=1, max_size=12, unique=True),
    width=st.integers(1, 90),
)
def test_any_names_get_distinct_labels_within_the_width(head, tails, width):
    names = [head + t for t in tails]
    out = labels(names, width)
    assert set(out) == set(names)
    assert len(set(out.values())) == len(set(names))
    assert all(len(label) <= max(width, 8) for label in out.values())

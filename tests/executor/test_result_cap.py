"""What one task stores is bounded (issue 35): a 20 MiB error text and 20 MiB of info per case
made a 94 MB run log for three cases. A worker's result over ``RESULT_CAP`` comes back cut to
fit, error texts first, each cut saying how much; a result whose bulk is not text fails its task
saying so (real worker processes)."""

from __future__ import annotations

import json

from recallbench.executor import ProcessExecutor, Task
from recallbench.executor.results import ERROR_CAP, RESULT_CAP, cap_result, encode_result


def test_three_flooding_cases_store_at_most_the_cap_each() -> None:
    with ProcessExecutor("support.child_tasks:big_result", 1, chunk=3) as ex:
        for i in range(3):
            ex.submit(Task(f"c{i}", {"mib": 6}))
        results = list(ex.results())
    assert len(results) == 3
    for r in results:
        assert r.error is None
        assert len(json.dumps(r.value)) <= RESULT_CAP  # was 18 MiB
        record = r.value["record"]
        assert record["frame_indices"] == [1, 2] and record["response"] == "Frame 1"
        assert record["info"]["steps"] == 3 and "[cut: " in record["info"]["trace"]
        for text in (record["agent_error"], r.value["error"]):
            assert len(text) < ERROR_CAP + 100 and text.endswith("more characters]")


def test_a_result_of_numbers_over_the_cap_fails_its_task_saying_so() -> None:
    value = {"info": list(range(5000)), "response": "r" * 5000}
    text, error = cap_result(value, encode_result(value)[0], cap=10_000)
    assert text == "null" and error is not None and "not mostly text" in error
    value = {"info": list(range(500)), "response": "r" * 20_000, "note": "kept"}
    text, error = cap_result(value, encode_result(value)[0], cap=10_000)
    cut = json.loads(text)
    assert error is None and len(text) <= 10_000 and cut["info"] == value["info"]
    assert cut["note"] == "kept" and cut["response"].endswith("more characters]")
    small = {"response": "x" * 100}
    assert cap_result(small, encode_result(small)[0]) == (encode_result(small)[0], None)

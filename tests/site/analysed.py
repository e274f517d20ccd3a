"""Running an analysis to its end in the test process, slice after slice, as the workers do
(analysis.jobs: each slice's `then` queues the next)."""
from analysis import jobs


def run_analysis(analysis_id):
    payload = {"analysis": analysis_id}
    while (result := jobs.analyse(payload)) is not None:
        payload = {"analysis": analysis_id, "from": result["from"]}

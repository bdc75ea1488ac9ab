"""ToyBench: a third benchmark as a plugin (issue 24), "which of N frames shows the red object".

One package plus one registration, nothing in recallbench edited for it: ``seam.py`` declares
the benchmark (its suite format, metric, scoring, options, and its runner by name),
``options.py`` its options, ``runner.py`` its runner, ``worker.py`` the case handler the
executor runs in worker processes, ``agents.py`` two agents, ``generate.py`` its generator
(``recallbench generate toybench``), ``command.py`` its command (``recallbench toybench``). It
is registered under the entry point groups ``recallbench.benchmarks`` (and its agents under
``recallbench.agents``); the tests do that with a ``toybench-0.dist-info`` folder on
PYTHONPATH (``register``).
"""

"""The eval the project owns: real code bases fetched as packages, questions with evidence spans,
and a runner that asks them through the real harness and scores the answers."""

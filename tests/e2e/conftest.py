"""End-to-end tests against the real ``opencode serve`` and the scripted fake LLM.

The fixtures (``opencode_bin``, ``fake_llm``, ``real_server``, ``live_server``, ``new_session``,
``events``) live in :mod:`tests.e2e.fixtures`, registered for the whole suite by
``tests/conftest.py`` so that ``tests/faults`` and others share the same per-worker server.
"""

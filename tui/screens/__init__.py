"""The app's screens: the main screen, the sessions list, and the ones a session may never open.

Those (help, the ask dialogs and the inbox, the model and agent pickers, the revert dialog) are
imported where they are first opened, not at start: with the widgets only they use (a data table,
a selection list, the form fields), ~1 MB that a process which never opens them would keep for its
whole life. The first one opened pays for the import once: 8–18 ms for the ask dialogs, less for
the others. ``tests/unit/test_start_up_weight.py`` checks that nothing loads them at start.
"""

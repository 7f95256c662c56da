"""Tests of python/frognano_client.py (unittest, standard library only).

Run from the repository root, with two services running (see support.py):

    python3 -m unittest discover -s python/tests -t python -v

`npx vitest run test/python` starts the services and runs this command.
"""

"""acp layer."""

from webclient import sdk

# Before any of the layer's modules imports the SDK: it loads faster this way (webclient/sdk.py).
sdk.load()

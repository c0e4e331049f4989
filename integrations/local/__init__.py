"""The embedded local providers' data: the owner's mail, files, calendar and books kept by Roadstar itself.

Each group keeps its models in its own module here (models_<group>.py), imported by one line in
integrations/models.py so Django sees them as the integrations app's models.
"""

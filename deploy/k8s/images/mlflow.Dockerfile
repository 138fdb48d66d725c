# The MLflow tracking server image used by deploy/k8s/mlflow.yaml: MLflow and the PostgreSQL driver on a slim
# Python, installed with pip from the index the build is configured with (the official image's recipe, plus the driver).
#   docker build -f deploy/k8s/images/mlflow.Dockerfile -t <registry>/cmb-mlflow:3.17.2 .
ARG PYTHON=python:3.11-slim
FROM ${PYTHON}
RUN pip install --no-cache-dir mlflow==3.17.2 psycopg2-binary==2.9.10
USER 1000:1000

# The MLflow tracking server image used by deploy/k8s/mlflow.yaml: the official image plus the PostgreSQL driver.
#   docker build -f deploy/k8s/images/mlflow.Dockerfile -t <registry>/cmb-mlflow:3.17.2 .
FROM ghcr.io/mlflow/mlflow:v3.17.2
RUN pip install --no-cache-dir psycopg2-binary==2.9.10
USER 1000:1000

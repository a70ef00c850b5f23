"""One catalog block -> pyiceberg's load_catalog properties and Spark's spark.sql.catalog.<name>.* settings.

Pure: the secrets come in as an argument, nothing is read here. The two clients name a few things
differently, and this is the one place that knows it:

==========================  ===================================  ===========================================
what                        pyiceberg                            Iceberg in Spark (Java)
==========================  ===================================  ===========================================
catalog type                sql, rest, glue, hive                jdbc, rest, glue, hive
catalog database            SQLAlchemy URL, user:password in it  JDBC URL + jdbc.user / jdbc.password
S3 region                   s3.region                            client.region
S3 addressing               s3.force-virtual-addressing          s3.path-style-access (the inverse)
REST auth kind              implied by its properties            rest.auth.type (oauth2, sigv4, none)
SigV4 on                    rest.sigv4-enabled                   rest.auth.type = sigv4
Glue region                 glue.region                          client.region (shared by Spark's AWS clients)
AWS keys (Glue, SigV4)      client.access-key-id, ...            the AWS default chain (the environment)
S3 keys                     s3.access-key-id, ...                the AWS default chain (the environment)
S3 file IO                  chosen by the location's scheme      io-impl = S3FileIO
==========================  ===================================  ===========================================

The same in both: uri (REST, Hive), warehouse, credential, token, scope, oauth2-server-uri,
rest.signing-region, rest.signing-name, s3.endpoint, header.X-Iceberg-Access-Delegation, glue.id.
S3 settings are added only when the data is on S3 (CatalogConfig.storage_kind); the pass-through
maps (properties for both, pyiceberg and spark for one) are applied last.
"""

from __future__ import annotations

from lakeops.catalogs.config import CatalogConfig
from lakeops.catalogs.secrets import CatalogSecrets
from lakeops.catalogs.urls import jdbc_url, parse_database_url, sqlalchemy_url

SPARK_EXTENSIONS = "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions"
SPARK_CATALOG = "org.apache.iceberg.spark.SparkCatalog"
S3_FILE_IO = "org.apache.iceberg.aws.s3.S3FileIO"
S3A_FILE_SYSTEM = "org.apache.hadoop.fs.s3a.S3AFileSystem"
ACCESS_DELEGATION = "header.X-Iceberg-Access-Delegation"
VENDED_CREDENTIALS = "vended-credentials"
JDBC_SCHEMA_VERSION = "V1"
"""Iceberg's JdbcCatalog schema with the iceberg_type column, which pyiceberg's SqlCatalog reads and writes too."""
SIGNING_NAME_DEFAULT = "execute-api"
SPARK_REDACTION_REGEX = r"(?i)secret|password|token|access[.]?key|credential"
"""Spark's default redaction pattern, plus `credential`: the OAuth2 client secret is shown masked in the Spark UI."""

_PYICEBERG_TYPE = {"embedded": "sql", "sql": "sql", "rest": "rest", "glue": "glue", "hive": "hive"}
_SPARK_TYPE = {"embedded": "jdbc", "sql": "jdbc", "rest": "rest", "glue": "glue", "hive": "hive"}


def _set(props: dict[str, str], key: str, value: str | None) -> None:
    if value:
        props[key] = value


def _uri_and_warehouse(config: CatalogConfig, spark: bool, secrets: CatalogSecrets) -> dict[str, str]:
    props: dict[str, str] = {}
    if config.kind == "embedded":
        props["uri"] = f"jdbc:sqlite:{config.sqlite_path}" if spark else f"sqlite:///{config.sqlite_path}"
        props["warehouse"] = config.warehouse_location
        return props
    if config.kind == "sql":
        db = parse_database_url(config.uri or "")
        props["uri"] = jdbc_url(db) if spark else sqlalchemy_url(db, secrets.user, secrets.password)
    else:
        _set(props, "uri", config.uri)
    _set(props, "warehouse", config.warehouse)
    return props


def _rest(config: CatalogConfig, secrets: CatalogSecrets, spark: bool) -> dict[str, str]:
    props: dict[str, str] = {}
    if config.auth in ("oauth2", "token"):
        if spark:
            props["rest.auth.type"] = "oauth2"
        if config.auth == "oauth2":
            _set(props, "credential", secrets.credential)
            _set(props, "oauth2-server-uri", config.oauth2_server_uri)
            _set(props, "scope", config.scope)
        else:
            _set(props, "token", secrets.token)
    elif config.auth == "sigv4":
        if spark:
            props.update({"rest.auth.type": "sigv4", "rest.auth.sigv4.delegate-auth-type": "none"})
        else:
            props["rest.sigv4-enabled"] = "true"
            props.update(_aws_client_keys(secrets))
        _set(props, "rest.signing-region", config.region or config.s3_region)
        props["rest.signing-name"] = config.signing_name or SIGNING_NAME_DEFAULT
    elif config.auth == "none" and spark:
        props["rest.auth.type"] = "none"
    if config.vended_credentials:
        props[ACCESS_DELEGATION] = VENDED_CREDENTIALS
    return props


def _aws_client_keys(secrets: CatalogSecrets) -> dict[str, str]:
    """pyiceberg's keys for its AWS clients other than S3 (Glue, SigV4 signing)."""
    props: dict[str, str] = {}
    _set(props, "client.access-key-id", secrets.aws_access_key_id)
    _set(props, "client.secret-access-key", secrets.aws_secret_access_key)
    _set(props, "client.session-token", secrets.aws_session_token)
    return props


def pyiceberg_s3(config: CatalogConfig, secrets: CatalogSecrets) -> dict[str, str]:
    """pyiceberg's S3 file IO settings; {} unless the data is on S3."""
    if not config.on_s3:
        return {}
    props: dict[str, str] = {}
    _set(props, "s3.region", config.s3_region)
    if config.s3_endpoint:
        props["s3.endpoint"] = config.s3_endpoint
        props["s3.force-virtual-addressing"] = str(not config.s3_path_style_access).lower()
    _set(props, "s3.access-key-id", secrets.aws_access_key_id)
    _set(props, "s3.secret-access-key", secrets.aws_secret_access_key)
    _set(props, "s3.session-token", secrets.aws_session_token)
    return props


def pyiceberg_properties(config: CatalogConfig, secrets: CatalogSecrets) -> dict[str, str]:
    """Properties for pyiceberg.catalog.load_catalog(config.name, **props)."""
    props = {"type": _PYICEBERG_TYPE[config.kind], **_uri_and_warehouse(config, False, secrets)}
    if config.kind == "rest":
        props.update(_rest(config, secrets, spark=False))
    if config.kind == "glue":
        _set(props, "glue.region", config.region or config.s3_region)
        props.update(_aws_client_keys(secrets))
    props.update(pyiceberg_s3(config, secrets))
    return {**props, **config.properties, **config.pyiceberg}


def spark_properties(config: CatalogConfig, secrets: CatalogSecrets) -> dict[str, str]:
    """Iceberg catalog properties for Spark, without the spark.sql.catalog.<name>. prefix."""
    props = {"type": _SPARK_TYPE[config.kind], **_uri_and_warehouse(config, True, secrets)}
    if props["type"] == "jdbc":
        props["jdbc.schema-version"] = JDBC_SCHEMA_VERSION
        if config.kind == "sql":
            _set(props, "jdbc.user", secrets.user or parse_database_url(config.uri or "").user)
            _set(props, "jdbc.password", secrets.password)
    if config.kind == "rest":
        props.update(_rest(config, secrets, spark=True))
    if config.kind == "glue":
        _set(props, "client.region", config.region or config.s3_region)
    if config.on_s3:
        props["io-impl"] = S3_FILE_IO
        if config.s3_region:
            props.setdefault("client.region", config.s3_region)
        if config.s3_endpoint:
            props["s3.endpoint"] = config.s3_endpoint
            props["s3.path-style-access"] = str(config.s3_path_style_access).lower()
    return {**props, **config.properties, **config.spark}


def spark_catalog_settings(config: CatalogConfig, secrets: CatalogSecrets) -> dict[str, str]:
    """Spark settings that register the catalog under config.name and make it the default catalog."""
    prefix = f"spark.sql.catalog.{config.name}"
    conf = {"spark.sql.extensions": SPARK_EXTENSIONS, prefix: SPARK_CATALOG, "spark.sql.defaultCatalog": config.name}
    conf.update({f"{prefix}.{key}": value for key, value in spark_properties(config, secrets).items()})
    return conf


def spark_s3a_settings(config: CatalogConfig) -> dict[str, str]:
    """Hadoop's S3A file system for what Spark reads by path on S3 (landing files, zonemap files): s3:// and
    s3a:// both go to the catalog's object store. Keys come from the environment of the driver and of each
    executor, never from here. {} unless the data is on S3."""
    if not config.on_s3:
        return {}
    conf = {
        "spark.hadoop.fs.s3.impl": S3A_FILE_SYSTEM,
        "spark.hadoop.fs.s3a.aws.credentials.provider":
            "software.amazon.awssdk.auth.credentials.EnvironmentVariableCredentialsProvider,"
            "software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider",
    }
    _set(conf, "spark.hadoop.fs.s3a.endpoint.region", config.s3_region)
    if config.s3_endpoint:
        conf["spark.hadoop.fs.s3a.endpoint"] = config.s3_endpoint
        conf["spark.hadoop.fs.s3a.path.style.access"] = str(config.s3_path_style_access).lower()
    return conf


def spark_session_settings() -> dict[str, str]:
    """Settings a session must get when it starts (not at run time): the Spark UI masks the catalog's secrets."""
    return {"spark.redaction.regex": SPARK_REDACTION_REGEX}

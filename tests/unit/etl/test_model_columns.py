from __future__ import annotations

import pytest

from lakeops.config.models import ModelConfig, ModelSourceConfig
from lakeops.etl.model_columns import check_model_columns
from lakeops.exceptions import ConfigError

ORDERS = ModelConfig("orders_now", python="models:orders", key=("order_id",), partition_column="created_at",
                     recompute_by=("user_id",), sources={"orders": ModelSourceConfig(kind="changelog")})
TABLE = ["order_id", "user_id", "status", "created_at"]


def test_a_select_that_fits_its_table_passes_whatever_the_case_of_its_names():
    check_model_columns(ORDERS, ["order_id", "User_Id", "created_at"], "shop.orders_now", TABLE)


def test_a_column_the_table_lacks_is_named_with_the_fix():
    with pytest.raises(ConfigError, match=r"models\.orders_now: its SELECT yields gross, which table shop\.orders_now "
                                          r"does not have; add .*ALTER TABLE shop\.orders_now ADD COLUMN.*"
                                          r"lakeops etl run orders_now --full"):
        check_model_columns(ORDERS, ["order_id", "user_id", "created_at", "gross"], "shop.orders_now", TABLE)


def test_a_key_recompute_or_partition_column_the_select_does_not_yield_is_named():
    with pytest.raises(ConfigError, match=r"yields no column user_id, created_at, .*The SELECT yields: order_id, status"):
        check_model_columns(ORDERS, ["order_id", "status"], "shop.orders_now", TABLE)


def test_a_column_name_that_is_no_plain_identifier_is_refused():
    with pytest.raises(ConfigError, match=r"models\.orders_now: a column of its SELECT: 'total value' is not a valid name"):
        check_model_columns(ORDERS, ["order_id", "user_id", "created_at", "total value"], "shop.orders_now", TABLE)

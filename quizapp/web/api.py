"""The JSON API: the calculator and its catalogs. Errors are 400 with {"error", "field"}."""

from __future__ import annotations

from flask import Blueprint, jsonify, request

from ..calc import CalcError, calculate, gpu_entries, model_entries

bp = Blueprint("api", __name__, url_prefix="/api")


@bp.errorhandler(CalcError)
def calc_error(error: CalcError):
    return jsonify(error.to_json()), 400


def json_body() -> dict:
    data = request.get_json(silent=True)
    if not isinstance(data, dict):
        raise CalcError("the request body must be a JSON object of calculator inputs", None)
    return data


@bp.post("/calc")
def calc():
    return jsonify(calculate(json_body()).to_json())


@bp.get("/models")
def models():
    return jsonify({"models": model_entries()})


@bp.get("/gpus")
def gpus():
    return jsonify({"gpus": gpu_entries()})

"""Flask's tutorial app "flaskr" with its views and hooks written ``async def``.

The views await the body reads, as in Quart (``await request.form``) and
await ``render_template``; the templates, the schema and the database
commands are flaskr's own (``examples/flaskr``). The database connection is
opened on the event loop by the ``async def`` hook and closed by flaskr's
``def`` teardown in the App's thread pool, so it is opened with
``check_same_thread=False``.
"""

from __future__ import annotations

import functools
import sqlite3
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from sansio_http.compat.flask import (
    Blueprint,
    Flask,
    abort,
    current_app,
    flash,
    g,
    redirect,
    render_template,
    request,
    session,
    url_for,
)
from sansio_http.compat.flask.security import check_password_hash, generate_password_hash

FLASKR = Path(__file__).resolve().parents[2] / "examples" / "flaskr"

auth = Blueprint("auth", __name__, url_prefix="/auth")
blog = Blueprint("blog", __name__)

View = Callable[..., Awaitable[Any]]


def get_db() -> sqlite3.Connection:
    if "db" not in g:
        g.db = sqlite3.connect(
            current_app.config["DATABASE"],
            detect_types=sqlite3.PARSE_DECLTYPES,
            check_same_thread=False,
        )
        g.db.row_factory = sqlite3.Row
    db: sqlite3.Connection = g.db
    return db


def login_required(view: View) -> View:
    @functools.wraps(view)
    async def wrapped_view(**kwargs: Any) -> Any:
        if g.user is None:
            return redirect(url_for("auth.login"))
        return await view(**kwargs)

    return wrapped_view


@auth.before_app_request
async def load_logged_in_user() -> None:
    user_id = session.get("user_id")
    if user_id is None:
        g.user = None
    else:
        g.user = get_db().execute("SELECT * FROM user WHERE id = ?", (user_id,)).fetchone()


@auth.route("/register", methods=("GET", "POST"))
async def register() -> Any:
    if request.method == "POST":
        form = await request.form
        username = form["username"]
        password = form["password"]
        db = get_db()
        error = None
        if not username:
            error = "Username is required."
        elif not password:
            error = "Password is required."
        if error is None:
            try:
                db.execute(
                    "INSERT INTO user (username, password) VALUES (?, ?)",
                    (username, generate_password_hash(password)),
                )
                db.commit()
            except db.IntegrityError:
                error = f"User {username} is already registered."
            else:
                return redirect(url_for("auth.login"))
        flash(error)
    return await render_template("auth/register.html")


@auth.route("/login", methods=("GET", "POST"))
async def login() -> Any:
    if request.method == "POST":
        form = await request.form
        username = form["username"]
        password = form["password"]
        db = get_db()
        error = None
        user = db.execute("SELECT * FROM user WHERE username = ?", (username,)).fetchone()
        if user is None:
            error = "Incorrect username."
        elif not check_password_hash(user["password"], password):
            error = "Incorrect password."
        if error is None:
            session.clear()
            session["user_id"] = user["id"]
            return redirect(url_for("index"))
        flash(error)
    return await render_template("auth/login.html")


@auth.route("/logout")
async def logout() -> Any:
    session.clear()
    return redirect(url_for("index"))


@blog.route("/")
async def index() -> Any:
    posts = (
        get_db()
        .execute(
            "SELECT p.id, title, body, created, author_id, username"
            " FROM post p JOIN user u ON p.author_id = u.id"
            " ORDER BY created DESC"
        )
        .fetchall()
    )
    return await render_template("blog/index.html", posts=posts)


def get_post(id: int, check_author: bool = True) -> Any:
    post = (
        get_db()
        .execute(
            "SELECT p.id, title, body, created, author_id, username"
            " FROM post p JOIN user u ON p.author_id = u.id"
            " WHERE p.id = ?",
            (id,),
        )
        .fetchone()
    )
    if post is None:
        abort(404, f"Post id {id} doesn't exist.")
    if check_author and post["author_id"] != g.user["id"]:
        abort(403)
    return post


@blog.route("/create", methods=("GET", "POST"))
@login_required
async def create() -> Any:
    if request.method == "POST":
        form = await request.form
        title = form["title"]
        body = form["body"]
        if not title:
            flash("Title is required.")
        else:
            db = get_db()
            db.execute(
                "INSERT INTO post (title, body, author_id) VALUES (?, ?, ?)",
                (title, body, g.user["id"]),
            )
            db.commit()
            return redirect(url_for("blog.index"))
    return await render_template("blog/create.html")


@blog.route("/<int:id>/update", methods=("GET", "POST"))
@login_required
async def update(id: int) -> Any:
    post = get_post(id)
    if request.method == "POST":
        form = await request.form
        title = form["title"]
        body = form["body"]
        if not title:
            flash("Title is required.")
        else:
            db = get_db()
            db.execute("UPDATE post SET title = ?, body = ? WHERE id = ?", (title, body, id))
            db.commit()
            return redirect(url_for("blog.index"))
    return await render_template("blog/update.html", post=post)


@blog.route("/<int:id>/delete", methods=("POST",))
@login_required
async def delete(id: int) -> Any:
    get_post(id)
    db = get_db()
    db.execute("DELETE FROM post WHERE id = ?", (id,))
    db.commit()
    return redirect(url_for("blog.index"))


def close_db(e: BaseException | None = None) -> None:
    db = g.pop("db", None)
    if db is not None:
        db.close()


def create_app(test_config: dict[str, Any] | None = None) -> Flask:
    """Create the async flaskr, with flaskr's folder for templates, static files and schema."""
    app = Flask("flaskr", root_path=str(FLASKR), instance_relative_config=True)
    app.config.from_mapping(SECRET_KEY="dev")
    if test_config is not None:
        app.config.update(test_config)

    @app.route("/hello")
    async def hello() -> str:
        return "Hello, World!"

    app.teardown_appcontext(close_db)
    app.register_blueprint(auth)
    app.register_blueprint(blog)
    app.add_url_rule("/", endpoint="index")
    return app

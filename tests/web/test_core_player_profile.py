"""Players as people: an optional photo (size limits with clear pt/en errors), club and flag,
shown on the TV and the full overlay."""
from __future__ import annotations

import io

import pytest
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.utils import translation
from PIL import Image

from scoreboard.core.models import PHOTO_MAX_BYTES, Player

pytestmark = pytest.mark.django_db


def image(w: int, h: int, fmt: str = "PNG") -> SimpleUploadedFile:
    buf = io.BytesIO()
    Image.new("RGB", (w, h), (200, 30, 30)).save(buf, fmt)
    return SimpleUploadedFile(f"p.{fmt.lower()}", buf.getvalue(), content_type=f"image/{fmt.lower()}")


def errors(player: Player, lang: str) -> list[str]:
    with translation.override(lang):
        try:
            player.full_clean()
        except ValidationError as e:
            return e.message_dict.get("photo", [])
    return []


@pytest.mark.parametrize("upload, pt, en", [
    (lambda: image(3000, 200), "A foto tem 3000×200 pixels; cada lado deve ter de 64 a 2000 pixels.",
     "The photo is 3000×200 pixels; each side must be 64 to 2000 pixels."),
    (lambda: image(40, 40), "A foto tem 40×40 pixels; cada lado deve ter de 64 a 2000 pixels.",
     "The photo is 40×40 pixels; each side must be 64 to 2000 pixels."),
    (lambda: image(100, 100, "GIF"), "O arquivo não é uma imagem JPEG, PNG ou WebP.",
     "The file is not a JPEG, PNG or WebP image."),
    (lambda: SimpleUploadedFile("p.png", b"\x89PNG" + b"0" * (PHOTO_MAX_BYTES + 10)),
     f"A foto tem {(PHOTO_MAX_BYTES + 14) // 1024} KB; o máximo é 2048 KB.",
     f"The photo is {(PHOTO_MAX_BYTES + 14) // 1024} KB; the most is 2048 KB."),
])
def test_a_photo_out_of_limits_is_refused_with_a_clear_message(upload, pt, en):
    p = Player(name="Ana", photo=upload())
    assert pt in errors(p, "pt-br")
    p = Player(name="Ana", photo=upload())
    assert en in errors(p, "en")


def test_a_good_photo_club_and_flag_pass_and_show_on_tv_and_full_overlay(created, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    player = created.match.player_a
    player.photo = image(300, 300)
    player.club = "Clube Paulistano"
    player.country = "BR"
    player.full_clean()
    player.save()
    c = Client()
    tv = c.get(f"/matches/{created.match.pk}/tv/").content.decode()
    ana = tv.split('data-player="0"')[1].split('data-player="1"')[0]
    # the screens show the thumbnail made at upload (issue 18 audit: the upload itself, up to 2 MB)
    assert player.photo_thumb.name.endswith("-thumb.webp")
    assert f'<img class="tv-photo" src="{player.photo_thumb.url}"' in ana
    assert "Clube Paulistano" in ana and '/static/flags/br.gif' in ana and 'alt="Brasil"' in ana
    ov = c.get(f"/matches/{created.match.pk}/overlay/?layout=full").content.decode()
    assert f'<img class="ov-photo" src="{player.photo_thumb.url}"' in ov and "Clube Paulistano" in ov
    r = c.get(player.photo.url)  # the app serves the uploaded photo
    assert r.status_code == 200 and b"".join(r.streaming_content)[:4] == b"\x89PNG"
    r = c.get(player.photo_thumb.url)  # and its thumbnail
    assert r.status_code == 200 and b"".join(r.streaming_content)[8:12] == b"WEBP"


def test_the_venue_card_shows_club_and_flag(created):
    from scoreboard.core.models import Player

    Player.objects.filter(pk=created.match.player_b_id).update(club="Sinuca Clube do Porto", country="PT")
    created.match.started_at = created.match.created_at
    created.match.save(update_fields=["started_at"])
    html = Client().get("/").content.decode()
    bia = html[html.index("Bia Lima") - 300:html.index("Bia Lima") + 200]
    assert '/static/flags/pt.gif' in bia and 'alt="Portugal"' in bia and "Sinuca Clube do Porto" in bia


# -- issue 15, item 3: photos are re-encoded on upload ------------------------------------------

def spy_jpeg(w: int = 120, h: int = 80) -> bytes:
    """A JPEG whose EXIF says "rotate 90° clockwise" and carries a camera name and GPS position."""
    exif = Image.Exif()
    exif[0x0112] = 6  # orientation: the pixels are to be shown turned a quarter clockwise
    exif[0x010F] = "SpyCam"
    exif[0x8825] = {1: "S", 2: (23.0, 32.0, 51.0), 3: "W", 4: (46.0, 38.0, 10.0)}
    buf = io.BytesIO()
    img = Image.new("RGB", (w, h), (200, 30, 30))
    img.paste((20, 20, 220), (0, 0, w // 2, h))  # left half blue: shows which way it was turned
    img.save(buf, "JPEG", exif=exif.tobytes(), quality=95)
    return buf.getvalue()


def stored(player: Player) -> bytes:
    with player.photo.open("rb") as f:
        return f.read()


def saved_player(name: str, data: bytes, settings, tmp_path) -> Player:
    settings.MEDIA_ROOT = tmp_path
    p = Player(name="Ana", photo=SimpleUploadedFile(name, data))
    p.full_clean()
    p.save()
    return Player.objects.get(pk=p.pk)


def test_exif_and_gps_are_stripped_and_the_orientation_is_applied(db, settings, tmp_path):
    data = spy_jpeg()
    assert b"SpyCam" in data and Image.open(io.BytesIO(data)).getexif().get_ifd(0x8825)
    p = saved_player("ana.jpg", data, settings, tmp_path)
    out = stored(p)
    img = Image.open(io.BytesIO(out))
    assert img.format == "JPEG" and p.photo.name.endswith(".jpg")
    assert img.size == (80, 120)  # turned upright, as the camera meant it
    top = img.convert("RGB").getpixel((40, 5))
    assert top[2] > 150 and top[0] < 100  # the blue half is now on top
    assert dict(img.getexif()) == {} and "exif" not in img.info
    assert b"SpyCam" not in out and b"Exif" not in out
    assert (p.photo.width, p.photo.height) == (80, 120)


def test_a_png_named_pdf_is_stored_and_served_as_png(db, settings, tmp_path):
    buf = io.BytesIO()
    Image.new("RGB", (100, 100), (10, 200, 10)).save(buf, "PNG")
    p = saved_player("retrato.pdf", buf.getvalue(), settings, tmp_path)
    assert p.photo.name.startswith("players/retrato") and p.photo.name.endswith(".png")
    r = Client().get(p.photo.url)
    assert r.status_code == 200 and r["Content-Type"] == "image/png"
    assert b"".join(r.streaming_content)[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_jpeg_named_png_is_stored_as_jpeg(db, settings, tmp_path):
    p = saved_player("foto.png", spy_jpeg(), settings, tmp_path)
    assert p.photo.name.endswith(".jpg") and stored(p)[:3] == b"\xff\xd8\xff"


def test_polyglot_bytes_and_text_chunks_do_not_survive(db, settings, tmp_path):
    from PIL import PngImagePlugin

    info = PngImagePlugin.PngInfo()
    info.add_text("Comment", "<script>alert('png-text')</script>")
    buf = io.BytesIO()
    Image.new("RGBA", (90, 90), (200, 30, 30, 128)).save(buf, "PNG", pnginfo=info)
    tail = b"PK\x03\x04polyglot<script>alert('tail')</script>"
    p = saved_player("p.png", buf.getvalue() + tail, settings, tmp_path)
    out = stored(p)
    assert b"polyglot" not in out and b"script" not in out and b"tEXt" not in out
    img = Image.open(io.BytesIO(out))
    assert img.format == "PNG" and img.mode == "RGBA" and img.getpixel((5, 5)) == (200, 30, 30, 128)
    assert out.endswith(b"IEND\xaeB`\x82")  # nothing after the image's last chunk


def test_a_photo_saved_without_the_form_is_re_encoded_too(db, settings, tmp_path):
    from django.core.files.base import ContentFile

    settings.MEDIA_ROOT = tmp_path
    p = Player.objects.create(name="Bia")
    p.photo.save("bia.jpeg", ContentFile(spy_jpeg()))
    out = stored(Player.objects.get(pk=p.pk))
    assert b"SpyCam" not in out and Image.open(io.BytesIO(out)).size == (80, 120)
    with pytest.raises(ValidationError) as e:  # the same checks, the same words
        p.photo.save("huge.png", ContentFile(image(3000, 100).read()))
    assert e.value.messages == ["A foto tem 3000×100 pixels; cada lado deve ter de 64 a 2000 pixels."]


def test_the_admin_stores_a_png_uploaded_as_pdf_as_a_clean_png(admin_client, settings, tmp_path):
    """The organiser's real path: the admin's add form, multipart upload."""
    settings.MEDIA_ROOT = tmp_path
    buf = io.BytesIO()
    Image.new("RGB", (100, 100), (10, 200, 10)).save(buf, "PNG")
    upload = SimpleUploadedFile("cartaz.pdf", buf.getvalue() + b"%PDF-1.7 polyglot", content_type="application/pdf")
    r = admin_client.post("/admin/scoreboard/player/add/", {"name": "Caio", "photo": upload})
    assert r.status_code == 302, r.content.decode()[:500]
    p = Player.objects.get(name="Caio")
    assert p.photo.name.endswith(".png") and b"polyglot" not in stored(p)
    assert Client().get(p.photo.url)["Content-Type"] == "image/png"


def test_reencodephotos_cleans_the_photos_and_sponsor_images_stored_before_the_upload_fix(db, settings, tmp_path):
    """Photos uploaded before uploads were re-encoded keep their EXIF (GPS) and any bytes after
    the image: ``manage.py reencodephotos`` writes them again as an upload is now, and a second
    run changes nothing (a clean JPEG is not compressed again)."""
    from io import StringIO

    from django.core.management import call_command
    from PIL import PngImagePlugin

    from scoreboard.core.models import Sponsor, photo_is_clean

    settings.MEDIA_ROOT = tmp_path
    (tmp_path / "players").mkdir()
    (tmp_path / "sponsors").mkdir()
    (tmp_path / "players" / "ana.jpg").write_bytes(spy_jpeg() + b"PK\x03\x04 a polyglot's zip")
    meta = PngImagePlugin.PngInfo()
    meta.add_text("Author", "someone's home address")
    png = io.BytesIO()
    Image.new("RGB", (100, 100), (0, 200, 0)).save(png, "PNG", pnginfo=meta)
    (tmp_path / "sponsors" / "logo.pdf").write_bytes(png.getvalue())  # a PNG named .pdf
    (tmp_path / "players" / "bia.png").write_bytes(b"%PDF-1.4 not an image")
    # as the rows were before the fix: the files as uploaded, no re-encoding on the way
    ana = Player.objects.create(name="Ana")
    Player.objects.filter(pk=ana.pk).update(photo="players/ana.jpg")
    bia = Player.objects.create(name="Bia")
    Player.objects.filter(pk=bia.pk).update(photo="players/bia.png")
    sponsor = Sponsor.objects.create(name="Bar do Zé")
    Sponsor.objects.filter(pk=sponsor.pk).update(image="sponsors/logo.pdf")

    out, err = StringIO(), StringIO()
    call_command("reencodephotos", stdout=out, stderr=err)
    assert out.getvalue().splitlines()[-1].startswith("2 regravadas / re-encoded, 0 já limpas")
    assert "1 recusadas / refused" in out.getvalue() and "bia.png" in err.getvalue()

    ana = Player.objects.get(pk=ana.pk)
    data = stored(ana)
    img = Image.open(io.BytesIO(data))
    assert ana.photo.name.endswith(".jpg") and img.format == "JPEG" and img.size == (80, 120)
    assert dict(img.getexif()) == {} and b"SpyCam" not in data and b"PK\x03\x04" not in data
    assert data.endswith(b"\xff\xd9") and photo_is_clean(ana.photo.name, data)
    assert ana.photo.name != "players/ana.jpg" and not (tmp_path / "players" / "ana.jpg").exists()
    sponsor = Sponsor.objects.get(pk=sponsor.pk)
    assert sponsor.image.name.startswith("sponsors/logo") and sponsor.image.name.endswith(".png")
    with sponsor.image.open("rb") as f:
        logo = f.read()
    assert b"someone's home address" not in logo and Image.open(io.BytesIO(logo)).format == "PNG"
    assert not (tmp_path / "sponsors" / "logo.pdf").exists()
    assert Player.objects.get(pk=bia.pk).photo.name == "players/bia.png"  # left alone, named

    before = {p.name: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    out = StringIO()
    call_command("reencodephotos", stdout=out, stderr=StringIO())
    assert out.getvalue().splitlines()[-1].startswith("0 regravadas / re-encoded, 2 já limpas")
    assert {p.name: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()} == before

"""Write the example corpus (examples/docs/) and the small test corpus (tests/data/corpus/).

The generated files are committed; run this only to change them:

    python examples/make_examples.py

It needs the document tools from the dev environment (reportlab, python-docx,
python-pptx, openpyxl), not ragwire itself.  Output is byte-for-byte
reproducible: fixed dates in document properties and ZIP entries, and
reportlab's invariant mode.  All text is original and describes a fictional
company, Northwind Robotics, and its warehouse robot, the Aurora AR-7.
"""

from __future__ import annotations

import datetime
import io
import random
import re
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DOCS = REPO / "examples" / "docs"
CORPUS = REPO / "tests" / "data" / "corpus"

FIXED_DATE = datetime.datetime(2024, 9, 12, 9, 0, 0)
_ZIP_DATE = (2024, 9, 12, 9, 0, 0)
_W3C_DATE = "2024-09-12T09:00:00Z"


# --------------------------------------------------------------------------- examples/docs

USER_GUIDE = """\
# Aurora AR-7 User Guide

Northwind Robotics · guide revision 3.3, for firmware 3.3.1

The Aurora AR-7 is an autonomous mobile robot that carries totes and cartons
between storage aisles and packing stations. This guide covers unpacking and
first setup, the daily charging routine and routine maintenance. Error codes and
their fixes are listed separately in the troubleshooting reference.

## Safety first

- Both sides of the robot carry a red emergency-stop button. Pressing either one
  cuts power to the drive motors at once; twist the button to release it.
- The maximum payload is 120 kg. Heavier loads trigger error E-6001 and void the
  warranty for any resulting damage to the drive train.
- Keep loose straps, shrink wrap and pallet corners out of the driving lanes: the
  robot sees obstacles down to 5 cm above the floor, not flat plastic film.

## Setup

### Unpacking

Lift the robot out of its crate with two people or a pallet jack; the AR-7 weighs
68 kg without a payload. Keep the foam inserts and the crate. They are needed if
the robot ever has to travel back to Northwind for a repair.

### Mapping the warehouse

Before its first shift the robot needs a floor map. Switch it to Map mode on the
handheld pendant and drive it once around the whole operating area at walking
pace. The lidar records walls, racks and columns as it goes; mapping 1,000 square
metres takes about 20 minutes. Afterwards, open the map in the Northwind Fleet
Console and mark the charging stations, packing stations and any no-go zones.

### Joining the fleet network

The robot connects to the 5 GHz Wi-Fi network configured in the Fleet Console and
needs a fixed IP address. Reserve one address per robot on your DHCP server before
you switch the robot to Fleet mode.

## Charging

### Daily charging routine

Dock the robot at the charging station each night; a full charge takes 3 hours.
On a full battery the AR-7 runs a complete 10-hour shift. If your site works
longer shifts, enable opportunity charging in the Fleet Console: the robot then
tops itself up for 15 minutes whenever it is idle and the charge is below 60 %.

### Battery care

The robot runs on a 48 V lithium iron phosphate battery pack. Avoid running it
below 10 % charge; the robot returns to its dock on its own at 15 %. If a robot
will stand unused for more than two weeks, leave it at 40 to 60 % charge and
switch it off with the key switch. Replace the pack (part SKU-88213-B) after
about 2,000 full charge cycles or when the Fleet Console reports less than 80 %
of the original capacity.

### Placing the charging station

The charging station needs a standard 230 V socket and 1.5 m of clear floor in
front of its contacts so the robot can line up. Do not place it on a slope or in
the path of forklifts.

## Maintenance

### Weekly checks

- Wipe the lidar window with a dry microfibre cloth. Dust on the window is the most
  common cause of navigation errors.
- Look at the drive wheels for embedded screws, staples or stretch film.
- Press the bumper strip along its whole length; it must spring back by itself.

### Monthly service

- Run the lidar calibration from the Fleet Console (Tools → Calibrate lidar). It
  takes about four minutes and needs the robot parked on the calibration mat.
- Tighten the caster wheel bolts to 12 Nm.
- Export the battery health report and keep it with your maintenance records.

### Replacing the drive wheels

Drive wheels wear out after roughly 3,000 km of travel, which is about a year of
two-shift operation. Replace them in pairs (part SKU-40117-W). Park the robot on
the service stand, remove the four hub screws with a 5 mm hex key and slide the
wheel off its shaft.

## Getting help

For error codes shown on the status screen, see the troubleshooting reference.
Northwind support is reachable on weekdays from 07:00 to 19:00 CET at
support@northwind-robotics.example or +49 40 555 0107.
"""

TROUBLESHOOTING = """\
AURORA AR-7 TROUBLESHOOTING REFERENCE
Northwind Robotics Technical Support, revision 2024-09

How to use this reference
-------------------------
Each entry lists the error code shown on the robot's status screen, what it means
and how to fix it. Codes starting with E-1 concern safety, E-2 the battery,
E-3 the drive train, E-4 sensors, E-5 communication and E-6 the payload.
If a fix does not clear the code, note the robot's serial number (on the plate
behind the rear bumper) before you call support.

E-1002  Emergency stop engaged
  Meaning: one of the red emergency-stop buttons is pressed, or the bumper strip
  is held in.
  Fix: Check both sides of the robot, twist the pressed button to release it and
  confirm the restart on the pendant. If no button is pressed, the bumper strip
  may be jammed by debris; clear it and press the strip along its length.

E-2093  Battery cell imbalance
  Meaning: the battery management system measured more than 80 mV of difference
  between the strongest and the weakest cell. The robot limits its speed and
  returns to its dock.
  Fix: Leave the robot on its charging station for a full balancing cycle of at
  least 6 hours without interruption. If E-2093 comes back within a week, the
  pack is wearing out: order a replacement battery pack, part SKU-88213-B, and
  check whether it is still covered by the warranty.

E-2110  Charger handshake failed
  Meaning: the robot reached the dock but the charging station did not start.
  Fix: Clean the copper contacts on the robot and on the station with a dry
  cloth. Make sure the station is powered (green LED). Firmware 3.3.1 fixed a
  timeout that caused this code on stations with long mains cables.

E-3310  Wheel motor overcurrent
  Meaning: a drive motor drew more current than allowed for over two seconds,
  usually because a wheel is blocked.
  Fix: Switch the robot off, look for stretch film or straps wound around the
  axle and remove them. Let the motor cool for ten minutes before restarting.

E-4711  Lidar calibration drift
  Meaning: what the lidar measures no longer matches the stored floor map well
  enough. The robot slows down and may stop at the ends of aisles.
  Fix: 1) Wipe the lidar window with a dry microfibre cloth. 2) Park the robot on
  the calibration mat. 3) Run Tools > Calibrate lidar in the Fleet Console; it
  takes about four minutes. If E-4711 persists after two calibrations, the lidar
  mount may be bent after a collision: contact support and do not use the robot.

E-5120  Fleet network lost
  Meaning: the robot has not reached the Fleet Console for 30 seconds. It
  finishes its current move and waits.
  Fix: Check that the robot's reserved IP address is still free and that the
  5 GHz access points cover the aisle where it stopped.

E-6001  Payload over limit
  Meaning: the load cells report more than 120 kg on the deck.
  Fix: Remove part of the load. Repeated overloading wears the drive train and is
  not covered by the warranty.

Still stuck?
------------
Call Northwind support on +49 40 555 0107 or write to
support@northwind-robotics.example. Have the error code, the firmware version and
the robot's serial number ready.
"""

WARRANTY_PAGES = [
    (
        "Northwind Robotics Limited Warranty: Aurora AR-7",
        [
            "This policy describes what Northwind Robotics GmbH covers when an Aurora AR-7"
            " warehouse robot or one of its parts fails, and how to make a claim. It applies"
            " to robots bought directly from Northwind or from an authorised partner.",
            "<b>Warranty period.</b> The warranty lasts 24 months from the date the robot is"
            " delivered to your site. During this period Northwind repairs or replaces, free"
            " of charge, any part that fails because of a defect in materials or workmanship.",
            "<b>Battery pack.</b> The lithium iron phosphate battery pack, part number"
            " SKU-88213-B, is covered for 24 months or 2,000 full charge cycles, whichever"
            " comes first. A pack that keeps less than 80 % of its original capacity within"
            " that period counts as defective.",
            "<b>Wear parts.</b> Drive wheels, bumper strips and the lidar window are wear parts."
            " They are covered for 6 months only.",
            "<b>Repairs under warranty.</b> Replaced parts become the property of Northwind. A"
            " repair does not restart the warranty period, but every replaced part is itself"
            " covered for at least 6 months.",
        ],
    ),
    (
        "Returns, exclusions and claims",
        [
            "<b>Return window.</b> You may return an unused robot within 30 days of delivery"
            " for a full refund, provided it is in its original crate with all foam inserts."
            " Robots that have been mapped or put into service can be returned within the same"
            " 30 days for a refund minus a 15 % restocking fee.",
            "<b>What is not covered.</b> Damage caused by payloads above 120 kg, by collisions"
            " with forklifts or racking, by water or cleaning chemicals, or by repairs carried"
            " out by anyone other than Northwind or an authorised partner. Software problems"
            " caused by firmware older than two releases are fixed by updating, not under"
            " warranty.",
            "<b>How to make a claim.</b> Open a ticket in the Fleet Console (Help > Warranty"
            " claim) or email warranty@northwind-robotics.example with the robot's serial"
            " number, the error code shown and a short description. Northwind replies within"
            " two working days with a return authorisation (RMA) number. Ship the part or the"
            " robot in its original packaging; Northwind pays the shipping for accepted claims.",
            "<b>Extended cover.</b> The Northwind service plan extends the warranty by 12 months"
            " at a time and adds a yearly on-site inspection. See the current price list.",
        ],
    ),
]

RELEASE_NOTES = [
    ("title", "Aurora AR-7 Firmware Release Notes"),
    ("p", "Northwind Robotics publishes a firmware release for the AR-7 about every six months. "
          "Updates are installed from the Fleet Console (Fleet > Firmware) while the robot is docked."),
    ("h1", "Firmware 3.3.1 (12 September 2024)"),
    ("p", "A maintenance release. All sites running 3.3.0 should update."),
    ("h2", "Fixes"),
    ("bullet", "Lidar calibration drift (E-4711) was reported too often on polished or wet floors. "
               "The tolerance now adapts to floor reflectivity."),
    ("bullet", "The charger handshake timed out on stations with mains cables longer than 10 m (E-2110)."),
    ("bullet", "Battery health reports now show the cell voltage spread used for the E-2093 check."),
    ("h2", "Known issues"),
    ("bullet", "Maps with more than 5,000 no-go zones load slowly in the Fleet Console."),
    ("h1", "Firmware 3.2.0 (4 March 2024)"),
    ("p", "A feature release that adds opportunity charging and speed zones."),
    ("h2", "New features"),
    ("bullet", "Opportunity charging: robots top up for 15 minutes whenever they are idle below 60 % charge."),
    ("bullet", "Speed zones: draw areas on the map where robots drive at most 1 m/s, for example near packing tables."),
    ("bullet", "Fleet Console API v2 with webhooks for job completion and error codes."),
    ("h2", "Changes"),
    ("bullet", "The robot returns to its dock at 15 % charge instead of 10 %."),
    ("bullet", "Lidar calibration is about twice as fast (about four minutes)."),
    ("h2", "Upgrade notes"),
    ("p", "Robots must run 3.1.x before they can install 3.2.0. Back up the floor map before upgrading."),
]

ONBOARDING_SLIDES = [
    ("Welcome to Northwind Robotics", ["Onboarding for warehouse operators", "Working safely with the Aurora AR-7"]),
    ("Meet the Aurora AR-7", [
        "Carries totes and cartons up to 120 kg",
        "Drives at up to 2 m/s, slower in speed zones",
        "Runs a 10-hour shift on one charge",
        "Finds its way with lidar and two depth cameras",
    ]),
    ("Your first shift", [
        "Check the status screen: green means ready",
        "Load the deck evenly and keep loads below the side rails",
        "Send jobs from the pendant or let the Fleet Console assign them",
        "At the end of the shift, send every robot to its charging station",
    ]),
    ("Safety rules on the floor", [
        "Never ride on a robot or step in front of a moving one",
        "Red button on either side stops the robot immediately",
        "Report any collision, even a small one, to your shift lead",
    ]),
    ("Who to call", [
        "Error codes: see the troubleshooting reference first",
        "Shift lead: robot stuck, blocked aisle, damaged load",
        "Northwind support: +49 40 555 0107 or support@northwind-robotics.example",
    ]),
]

PRICE_LIST = [
    ("SKU", "Product", "Category", "Unit price (EUR)", "Notes"),
    ("AR-7-BASE", "Aurora AR-7 warehouse robot", "Robot", 38500, "Includes one charging station"),
    ("SKU-88213-B", "Replacement battery pack 48 V LiFePO4", "Spare part", 2950, "2,000 cycles; 24-month warranty"),
    ("SKU-40117-W", "Drive wheel pair", "Wear part", 310, "Replace every ~3,000 km"),
    ("SKU-51002-C", "Additional charging station", "Accessory", 4200, "230 V socket required"),
    ("SKU-77310-L", "Lidar module", "Spare part", 1850, "Calibrate after fitting"),
    ("SKU-12045-M", "Calibration mat", "Accessory", 95, "Needed for monthly lidar calibration"),
    ("SKU-90001-S", "Service plan, 12 months", "Service", 3600, "Extends warranty by 12 months"),
]

SERVICE_RATES = [
    ("Service", "Rate (EUR)", "Unit"),
    ("On-site technician", 145, "per hour"),
    ("Travel within Germany", 0.85, "per km"),
    ("Remote diagnosis", 0, "free"),
]

FAQ_HTML = """\
<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="windows-1252">
<title>Aurora AR-7 – Frequently asked questions</title>
<style>body { font-family: sans-serif; }</style>
</head>
<body>
<h1>Aurora AR-7: frequently asked questions</h1>

<h2>How much does a replacement battery cost?</h2>
<p>The replacement battery pack, part SKU-88213-B, costs €2,950 excluding VAT.
Within the 24-month warranty a defective pack is replaced free of charge.</p>

<h2>Can the robot work in a café or a shop?</h2>
<p>No. The AR-7 is built for warehouses closed to the public. A café, a shop floor
or any space with customers walking around needs a robot certified for public
areas, which the AR-7 is not.</p>

<h2>How fast does the robot drive?</h2>
<p>Up to 2 metres per second on open floor, and at most 1 metre per second inside
speed zones that you draw on the map.</p>

<h2>Does the AR-7 work in cold storage?</h2>
<p>It is rated for 5 °C to 40 °C. Chilled rooms down to 5 °C are fine; freezers
are not, because the battery cannot be charged below freezing.</p>

<h2>Where is service handled?</h2>
<p>Our service team in Hamburg covers Germany and Austria; partners in Zürich and
Lyon cover Switzerland and France. On-site visits cost €145 per hour.</p>
</body>
</html>
"""


# --------------------------------------------------------------------------- tests/data/corpus

TEST_HANDBOOK = """\
# Kiln Handbook

Introductory words about the pottery studio.

## Firing

### Bisque firing

Load greenware loosely; pieces may touch.

```bash
# heat slowly: this line is a comment, not a heading
kiln-ctl ramp --to 1000
```

### Glaze firing

Pieces must not touch, or they fuse together.

## Cleaning

Vacuum the kiln floor after every tenth firing.
"""

TEST_NOTES = """\
Field notes from the studio move

The shelving arrived on Tuesday and most of the clay went into the back room.
Somebody left the glaze buckets open over the weekend, so two of them dried out.
The replacement thermocouple for the small kiln has the order number ZX-9981-Q and
should arrive within a fortnight.
Lunch was soup again. The new wheel is quieter than the old one, which everyone likes.
"""

TEST_UTF16 = """\
Größe und Qualität der Glasuren

Die naïve Annahme, dass jede Glasur bei 1.240 °C schmilzt, ist falsch.
"""

TEST_PDF_PAGES = [
    ("Tiny test PDF", ["Page one says that the small kiln reaches 1,240 degrees in eight hours."]),
    ("Second page", ["Page two says that shelves must be coated with kiln wash before use."]),
]


# --------------------------------------------------------------------------- writers


def write_pdf(path: Path, pages: list[tuple[str, list[str]]], *, title: str) -> None:
    from reportlab.lib.pagesizes import A4
    from reportlab.lib.styles import getSampleStyleSheet
    from reportlab.lib.units import cm
    from reportlab.platypus import PageBreak, Paragraph, SimpleDocTemplate, Spacer

    styles = getSampleStyleSheet()
    story = []
    for index, (heading, paragraphs) in enumerate(pages):
        if index:
            story.append(PageBreak())
        story.append(Paragraph(heading, styles["Heading1"]))
        for text in paragraphs:
            story.append(Paragraph(text, styles["BodyText"]))
            story.append(Spacer(1, 0.3 * cm))
    document = SimpleDocTemplate(
        str(path), pagesize=A4, title=title, author="Northwind Robotics", invariant=1,
        leftMargin=2.2 * cm, rightMargin=2.2 * cm,
    )
    document.build(story)


def write_docx(path: Path, blocks: list[tuple[str, str]]) -> None:
    import docx

    document = docx.Document()
    document.core_properties.author = "Northwind Robotics"
    document.core_properties.title = "Aurora AR-7 Firmware Release Notes"
    document.core_properties.created = FIXED_DATE
    document.core_properties.modified = FIXED_DATE
    document.core_properties.last_modified_by = "Northwind Robotics"
    for kind, text in blocks:
        if kind == "title":
            document.add_heading(text, level=0)
        elif kind == "h1":
            document.add_heading(text, level=1)
        elif kind == "h2":
            document.add_heading(text, level=2)
        elif kind == "bullet":
            document.add_paragraph(text, style="List Bullet")
        else:
            document.add_paragraph(text)
    document.save(str(path))
    normalize_zip(path)


def write_pptx(path: Path, slides: list[tuple[str, list[str]]]) -> None:
    from pptx import Presentation

    presentation = Presentation()
    presentation.core_properties.author = "Northwind Robotics"
    presentation.core_properties.title = "Operator onboarding"
    presentation.core_properties.created = FIXED_DATE
    presentation.core_properties.modified = FIXED_DATE
    presentation.core_properties.last_modified_by = "Northwind Robotics"
    for index, (title, lines) in enumerate(slides):
        if index == 0:
            slide = presentation.slides.add_slide(presentation.slide_layouts[0])  # title slide
            slide.shapes.title.text = title
            slide.placeholders[1].text = "\n".join(lines)
            continue
        slide = presentation.slides.add_slide(presentation.slide_layouts[1])  # title and content
        slide.shapes.title.text = title
        body = slide.placeholders[1].text_frame
        body.text = lines[0]
        for line in lines[1:]:
            body.add_paragraph().text = line
    presentation.save(str(path))
    normalize_zip(path)


def write_xlsx(path: Path, sheets: list[tuple[str, list[tuple]]]) -> None:
    from openpyxl import Workbook
    from openpyxl.styles import Font

    workbook = Workbook()
    workbook.remove(workbook.active)
    workbook.properties.creator = "Northwind Robotics"
    workbook.properties.created = FIXED_DATE
    for name, rows in sheets:
        sheet = workbook.create_sheet(name)
        for row in rows:
            sheet.append(list(row))
        for cell in sheet[1]:
            cell.font = Font(bold=True)
        for column in ("A", "B", "C", "D", "E"):
            sheet.column_dimensions[column].width = 28
    workbook.save(str(path))
    normalize_zip(path)


def normalize_zip(path: Path) -> None:
    """Rewrite an Office file with fixed ZIP timestamps and document dates, so reruns give identical bytes."""
    with zipfile.ZipFile(path) as source:
        entries = [(info, source.read(info.filename)) for info in source.infolist()]
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as target:
        for info, data in entries:
            if info.filename == "docProps/core.xml":
                data = re.sub(
                    rb"(<dcterms:(?:created|modified)[^>]*>)[^<]*(</dcterms:)",
                    rb"\g<1>" + _W3C_DATE.encode() + rb"\g<2>",
                    data,
                )
            fixed = zipfile.ZipInfo(info.filename, date_time=_ZIP_DATE)
            fixed.compress_type = zipfile.ZIP_DEFLATED
            fixed.external_attr = 0o644 << 16
            target.writestr(fixed, data)
    path.write_bytes(buffer.getvalue())


def make_examples(folder: Path = DOCS) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "user-guide.md").write_text(USER_GUIDE, encoding="utf-8")
    (folder / "troubleshooting.txt").write_text(TROUBLESHOOTING, encoding="utf-8")
    write_pdf(folder / "warranty-policy.pdf", WARRANTY_PAGES, title="Northwind Robotics Limited Warranty")
    write_docx(folder / "release-notes.docx", RELEASE_NOTES)
    write_pptx(folder / "onboarding.pptx", ONBOARDING_SLIDES)
    write_xlsx(folder / "price-list.xlsx", [("Price list 2024", PRICE_LIST), ("Service rates", SERVICE_RATES)])
    (folder / "faq.html").write_bytes(FAQ_HTML.encode("cp1252"))
    return sorted(folder.iterdir())


def make_test_corpus(folder: Path = CORPUS) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "kiln-handbook.md").write_text(TEST_HANDBOOK, encoding="utf-8")
    (folder / "field-notes.txt").write_text(TEST_NOTES, encoding="utf-8")
    (folder / "glasuren-utf16.txt").write_bytes(b"\xff\xfe" + TEST_UTF16.encode("utf-16-le"))  # with BOM
    write_pdf(folder / "tiny.pdf", TEST_PDF_PAGES, title="Tiny test PDF")
    # Seeded random bytes: a PDF name on content that no reader can open.
    (folder / "broken.pdf").write_bytes(random.Random(20240912).randbytes(1024))
    return sorted(folder.iterdir())


def main() -> None:
    for path in make_examples() + make_test_corpus():
        print(f"{path.stat().st_size:>8,d}  {path.relative_to(REPO)}")


if __name__ == "__main__":
    main()

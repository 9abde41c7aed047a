; Inno Setup script for Burrow on Windows. UNTESTED: written here on Linux, never compiled.
; Build the bundle first (packaging/windows/build.ps1), then:  iscc /DAppVersion=0.1.0 packaging\windows\burrow.iss
; The model is a second, optional component so the installer works offline when it carries it.
#ifndef AppVersion
  #define AppVersion "0.1.0"
#endif

[Setup]
AppId={{6C1B1F3E-8E0B-4C55-9B7A-0B5E1D2A4C11}
AppName=Burrow
AppVersion={#AppVersion}
AppPublisher=Burrow developers
DefaultDirName={autopf}\Burrow
DefaultGroupName=Burrow
OutputDir=..\dist
OutputBaseFilename=burrow-{#AppVersion}-windows-x64-setup
ArchitecturesAllowed=x64compatible
ArchitecturesInstallIn64BitMode=x64compatible
Compression=lzma2/max
SolidCompression=yes
PrivilegesRequiredOverridesAllowed=dialog
UninstallDisplayIcon={app}\burrow.exe

[Types]
Name: "full"; Description: "Burrow and the default model (works offline)"
Name: "app"; Description: "Burrow only (choose a model later)"

[Components]
Name: "app"; Description: "Burrow"; Types: full app; Flags: fixed
Name: "model"; Description: "Default model: SmolLM2 135M (98 MB)"; Types: full

[Files]
Source: "..\build\pyi-dist\burrow\*"; DestDir: "{app}"; Components: app; Flags: recursesubdirs ignoreversion
; Installed next to the bundle's catalog, which app.llm.catalog checks first (project_root()/models).
Source: "..\..\models\SmolLM2-135M-Instruct.Q4_1.gguf"; DestDir: "{app}\_internal\models"; Components: model

[Icons]
Name: "{group}\Burrow"; Filename: "{app}\burrow.exe"; Parameters: "gui"
Name: "{autodesktop}\Burrow"; Filename: "{app}\burrow.exe"; Parameters: "gui"; Tasks: desktopicon

[Tasks]
Name: "desktopicon"; Description: "Create a desktop icon"; Flags: unchecked

[Run]
Filename: "{app}\burrow.exe"; Parameters: "gui"; Description: "Start Burrow"; Flags: nowait postinstall skipifsilent
